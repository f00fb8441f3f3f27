import LifecycleCore

/// An extension of a request's deadline as the ledger shows it (GDPR Art. 12(3), CCPA regulations §7021(b)).
public struct ReportExtension: Hashable, Sendable {
    /// Why the time was needed, as the operator recorded it.
    public var reason: String
    /// When the subject was told of the extension and its reason.
    public var noticeAt: Instant
    /// The deadline before the extension and the one after.
    public var previousDeadline: Instant
    public var newDeadline: Instant
    public var recordedAt: Instant

    public init(reason: String, noticeAt: Instant, previousDeadline: Instant, newDeadline: Instant, recordedAt: Instant)
    {
        self.reason = reason
        self.noticeAt = noticeAt
        self.previousDeadline = previousDeadline
        self.newDeadline = newDeadline
        self.recordedAt = recordedAt
    }

    /// Recorded once the deadline it extends had passed. The admin API refuses that now (`deadline_passed`);
    /// an older release stored such extensions, and the report judges their requests by the deadline before
    /// (``ReportAssembler``), since nothing but the operator's `noticeAt` says the extension was made in time.
    public var recordedAfterDeadline: Bool { recordedAt > previousDeadline }

    /// One line for the CSV and HTML renderers.
    public var summaryText: String {
        "deadline \(previousDeadline.iso8601) extended to \(newDeadline.iso8601), subject told at "
            + "\(noticeAt.iso8601): \(reason)"
            + (recordedAfterDeadline
                ? "; recorded at \(recordedAt.iso8601), after that deadline had passed: judged by it" : "")
    }
}

/// A legal hold on a request: while in force the erasure does not run, and the deadline evidence of a request
/// that was held never reads as on time (``ReportSubjectRow/onTime`` is null).
public struct ReportHold: Hashable, Sendable {
    public var grounds: String
    public var heldAt: Instant
    /// Nil while the hold is in force.
    public var releasedAt: Instant?
    public var releaseReason: String?

    public init(grounds: String, heldAt: Instant, releasedAt: Instant?, releaseReason: String?) {
        self.grounds = grounds
        self.heldAt = heldAt
        self.releasedAt = releasedAt
        self.releaseReason = releaseReason
    }

    public var summaryText: String {
        let released = releasedAt.map { " released at \($0.iso8601): \(releaseReason ?? "")" } ?? ", in force"
        return "held at \(heldAt.iso8601): \(grounds);\(released)"
    }
}

/// A refusal of a request and its basis (CCPA regulations §7101(a): the basis for the denial).
public struct ReportDenial: Hashable, Sendable {
    public var basis: String
    public var deniedAt: Instant

    public init(basis: String, deniedAt: Instant) {
        self.basis = basis
        self.deniedAt = deniedAt
    }

    public var summaryText: String { "denied at \(deniedAt.iso8601): \(basis)" }
}
