import LifecycleCore

/// The open findings of the last reconcile run (DESIGN.md §8), subjects pseudonymised.
public struct ReportFindings: Hashable, Sendable {
    /// When the last reconcile ran; nil when none is known (then ``items`` is empty).
    public var lastRunAt: Instant?
    public var items: [ReportFinding]
    /// Whether the run compared the app's own records (``ReportFindingRun/recordsCompared``); nil when unknown.
    public var recordsCompared: Bool?
    /// How many of the app's records it read; nil when unknown.
    public var recordsRead: Int?

    public init(lastRunAt: Instant?, items: [ReportFinding], recordsCompared: Bool? = nil, recordsRead: Int? = nil) {
        self.lastRunAt = lastRunAt
        self.items = items
        self.recordsCompared = recordsCompared
        self.recordsRead = recordsRead
    }

    public static let none = ReportFindings(lastRunAt: nil, items: [])
}

/// One reconciler finding as a report shows it.
public struct ReportFinding: Hashable, Sendable {
    /// ``FindingCode`` canonical name, e.g. `erasure-overdue`.
    public var code: String
    /// ``FindingSeverity`` canonical name: `info`, `warning` or `critical`.
    public var severity: String
    /// Keyed pseudonym of the subject, nil for findings about no one subject (a notification gap).
    public var pseudonym: String?
    /// One line of plain words; the reconciler never puts a `sub` in it.
    public var detail: String
    public var windowFrom: Instant?
    public var windowTo: Instant?
    /// The identity provider of the subject's account (`apple`, or a `signals` provider's `id`); nil for a
    /// finding about no one subject.
    public var provider: String?

    public init(
        code: String, severity: String, pseudonym: String?, detail: String, windowFrom: Instant?, windowTo: Instant?,
        provider: String? = nil
    ) {
        self.provider = provider
        self.code = code
        self.severity = severity
        self.pseudonym = pseudonym
        self.detail = detail
        self.windowFrom = windowFrom
        self.windowTo = windowTo
    }
}
