import LifecycleCore

/// The summary metrics of a report (DOMAIN.md §6; CCPA §7102: received, complied, median days to respond).
public struct ReportSummary: Hashable, Sendable {
    /// One entry per deletion event type, in ``ReportAssembler/deletionTypes`` order, zero rows included.
    public var byType: [ReportTypeSummary]
    /// Every type together (`type` is `all`).
    public var total: ReportTypeSummary
    /// Jobs (erasure and retention purge) whose status is `failed`.
    public var failedJobs: Int
    /// Retained items still kept (not yet purged).
    public var retainedItems: Int
    /// Open findings of the last reconcile by severity and by code; only values that occur, sorted by name.
    public var findingsBySeverity: [String: Int]
    public var findingsByCode: [String: Int]
    /// In-app deletions by the status of their Apple token revocation (``ReportAppleRevocation``); only values
    /// that occur.
    public var appleRevocations: [String: Int]
    /// The same counts as ``byType`` per identity provider (`type` is the provider: `apple`, or a `signals`
    /// provider's `id`), only providers with requests in the period, by name.
    public var byProvider: [ReportTypeSummary] = []

    public init(
        byType: [ReportTypeSummary], total: ReportTypeSummary, failedJobs: Int, retainedItems: Int,
        findingsBySeverity: [String: Int], findingsByCode: [String: Int], appleRevocations: [String: Int] = [:]
    ) {
        self.appleRevocations = appleRevocations
        self.byType = byType
        self.total = total
        self.failedJobs = failedJobs
        self.retainedItems = retainedItems
        self.findingsBySeverity = findingsBySeverity
        self.findingsByCode = findingsByCode
    }
}

/// Counts and timing of one event type's deletion requests.
public struct ReportTypeSummary: Hashable, Sendable {
    public var type: String
    public var received: Int
    /// Outcome `completed` or `completed-with-exceptions`.
    public var completed: Int
    /// The part of ``completed`` that kept categories under another law.
    public var completedWithExceptions: Int
    public var pending: Int
    public var overdue: Int
    public var failed: Int
    public var cancelled: Int
    /// ``DeletionStatistics/onTimeRate(_:asOf:)``: on-time share of decided requests, nil when none is decided.
    public var onTimeRate: Double?
    /// Nearest-rank median and p95 days to complete (``DeletionStatistics``); nil when fewer completion times
    /// than ``ReportOptions/minimumMedianSample`` (``ReportOptions/minimumP95Sample``) are known, since such a
    /// figure would describe one or two requests, not the service.
    public var medianDaysToComplete: Double?
    public var p95DaysToComplete: Double?
    /// The longest allowed time from event to deadline among the requests, in days: the bar charts draw
    /// the completion times against it. Nil when no deadline is known.
    public var deadlineDays: Double?
    /// How many requests the on-time rate is over: the decided ones (completed, or open past a deadline).
    public var decided: Int = 0
    /// How many completion times the median and p95 are over (the completed requests).
    public var daysToCompleteSample: Int = 0
    /// The slowest completion, in days; nil when none completed. Shown whatever the sample size.
    public var longestDaysToComplete: Double? = nil

    public init(
        type: String, received: Int, completed: Int, completedWithExceptions: Int, pending: Int, overdue: Int,
        failed: Int, cancelled: Int, onTimeRate: Double?, medianDaysToComplete: Double?, p95DaysToComplete: Double?,
        deadlineDays: Double?
    ) {
        self.type = type
        self.received = received
        self.completed = completed
        self.completedWithExceptions = completedWithExceptions
        self.pending = pending
        self.overdue = overdue
        self.failed = failed
        self.cancelled = cancelled
        self.onTimeRate = onTimeRate
        self.medianDaysToComplete = medianDaysToComplete
        self.p95DaysToComplete = p95DaysToComplete
        self.deadlineDays = deadlineDays
    }
}

/// How many events of each type arrived on one UTC day (every input kind but sign-ins, duplicates excluded).
public struct ReportDailyEvents: Hashable, Sendable {
    /// `yyyy-MM-dd` (UTC).
    public var day: String
    /// Count per event type, in ``ReportAssembler/chartedEventTypes`` order, zeros included.
    public var counts: [(type: String, count: Int)]

    public init(day: String, counts: [(type: String, count: Int)]) {
        self.day = day
        self.counts = counts
    }

    public var total: Int { counts.reduce(0) { $0 + $1.count } }

    public static func == (lhs: ReportDailyEvents, rhs: ReportDailyEvents) -> Bool {
        lhs.day == rhs.day && lhs.counts.elementsEqual(rhs.counts) { $0.type == $1.type && $0.count == $1.count }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(day)
        for entry in counts {
            hasher.combine(entry.type)
            hasher.combine(entry.count)
        }
    }
}
