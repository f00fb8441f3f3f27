/// Everything the service received for the app in the period, not only what became a deletion request: each
/// account input by what the state machine did with it, and the notifications of types it does not know
/// (stored and answered 200, applied to nothing). A reader sees that nothing was silently dropped.
public struct ReportInputCounts: Hashable, Sendable {
    /// Notifications stored with event time in the period, every type (known or not).
    public var notifications: Int
    /// Account inputs (notifications, in-app deletions, sign-ins, reconciler discoveries) the state machine
    /// applied.
    public var applied: Int
    /// Inputs repeating the last applied one of their aspect (same type and event time): changed nothing.
    public var duplicate: Int
    /// Inputs older than the last applied one of their aspect (out of order): recorded, changed nothing.
    public var stale: Int
    /// Inputs the state did not admit (anything after a deletion, which is terminal): recorded, changed nothing.
    public var ignored: Int
    /// Notifications of a type the service does not know, by type as sent; only types that occur.
    public var unknownTypes: [String: Int]

    public init(
        notifications: Int, applied: Int, duplicate: Int, stale: Int, ignored: Int, unknownTypes: [String: Int]
    ) {
        self.notifications = notifications
        self.applied = applied
        self.duplicate = duplicate
        self.stale = stale
        self.ignored = ignored
        self.unknownTypes = unknownTypes
    }

    public static let none = ReportInputCounts(
        notifications: 0, applied: 0, duplicate: 0, stale: 0, ignored: 0, unknownTypes: [:])

    /// Unknown-type notifications together.
    public var unknown: Int { unknownTypes.values.reduce(0, +) }
}
