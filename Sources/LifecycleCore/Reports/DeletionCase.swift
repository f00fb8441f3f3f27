/// One deletion request as the report's statistics see it: when it arrived, when it was due, when it was
/// completed (DOMAIN.md §6).
public struct DeletionCase: Hashable, Sendable {
    /// The event time the deadline runs from.
    public var eventTime: Instant
    public var deadline: Instant
    /// When the erasure completed; nil while it is not (pending, failed, unverified).
    public var completedAt: Instant?

    public init(eventTime: Instant, deadline: Instant, completedAt: Instant?) {
        self.eventTime = eventTime
        self.deadline = deadline
        self.completedAt = completedAt
    }

    /// Completed at or before the deadline.
    public var isOnTime: Bool { completedAt.map { $0 <= deadline } ?? false }

    /// Elapsed days from event to completion (fractional, 86 400 000 ms a day); nil while not completed.
    public var daysToComplete: Double? {
        completedAt.map { Double($0.millisecondsSinceEpoch - eventTime.millisecondsSinceEpoch) / 86_400_000 }
    }
}
