/// One discrepancy the reconciler found (DESIGN.md §8).
///
/// `subject` holds the raw Apple `sub` so the caller can act on it and pseudonymise it for reports; it must
/// never be logged as is. `detail` never contains it.
public struct Finding: Hashable, Sendable {
    public var code: FindingCode
    public var severity: FindingSeverity
    public var subject: String?
    /// One line of plain words for the report, without the `sub`.
    public var detail: String
    /// The time span the finding is about (an overdue period, a notification gap), if any.
    public var window: FindingWindow?

    /// A finding with the code's severity.
    public init(code: FindingCode, subject: String?, detail: String, window: FindingWindow? = nil) {
        self.init(code: code, severity: code.severity, subject: subject, detail: detail, window: window)
    }

    public init(code: FindingCode, severity: FindingSeverity, subject: String?, detail: String, window: FindingWindow?)
    {
        self.code = code
        self.severity = severity
        self.subject = subject
        self.detail = detail
        self.window = window
    }
}

/// A half-open span of time `[from, to)`.
public struct FindingWindow: Hashable, Sendable {
    public var from: Instant
    public var to: Instant

    public init(from: Instant, to: Instant) {
        self.from = from
        self.to = to
    }

    public var durationMilliseconds: Int64 { to.millisecondsSinceEpoch - from.millisecondsSinceEpoch }
}
