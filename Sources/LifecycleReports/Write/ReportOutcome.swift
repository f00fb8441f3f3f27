/// How one deletion request stands at the report's generation time (DOMAIN.md §6).
public enum ReportOutcome: String, Hashable, Sendable, CaseIterable {
    /// Every erasure job completed with evidence and nothing was kept.
    case completed = "completed"
    /// Every erasure job completed; some categories are kept under another law until their purge date.
    case completedWithExceptions = "completed-with-exceptions"
    /// A deadline passed and the erasure is not completed.
    case overdue = "overdue"
    /// Still within its deadline and not completed (waiting period, running, or no job yet).
    case pending = "pending"
    /// Within its deadline, but a job failed after its retries or its erasure cannot be proven: an operator
    /// must act before the deadline.
    case failed = "failed"
    /// The user signed in again before the erasure finished, and the re-link cancelled the request's
    /// cancellable jobs (a revocation withdrawn, DESIGN.md §5); the jobs no sign-in undoes had completed. The
    /// row's ``ReportSubjectRow/cancellation`` names the cancelled steps and the reason.
    case cancelled = "cancelled"

    /// The answer to the request, in the terms of a request ledger (CCPA regulations §7101(a): the date and
    /// nature of the response).
    public var response: ReportResponse {
        switch self {
        case .completed: .complied
        case .completedWithExceptions: .compliedInPart
        case .cancelled: .withdrawn
        case .pending, .overdue, .failed: .open
        }
    }
}

/// The nature of the response to a deletion request (CCPA regulations §7101(a), §7102(a)). An extension or a
/// legal hold is not a response: the request stays `open` and the row shows them (`extension`, `holds`).
public enum ReportResponse: String, Hashable, Sendable, CaseIterable {
    /// Erased everywhere the policy names.
    case complied = "complied"
    /// Erased, but categories kept under another law until their purge date (the grounds: `retained[].basis`).
    case compliedInPart = "complied-in-part"
    /// The user came back (signed in again) before the erasure finished: the cancellable part was withdrawn.
    case withdrawn = "withdrawn"
    /// Refused on a stated basis (the row's `denial`, e.g. a CCPA §1798.105(d) exception): its open erasure
    /// jobs were cancelled.
    case denied = "denied"
    /// Not answered yet (pending, failed or overdue), held or not.
    case open = "open"
}

/// Where a deletion request came from (DOMAIN.md §6).
public enum ReportEventSource: String, Hashable, Sendable, CaseIterable {
    /// An Apple server-to-server notification, live or replayed.
    case notification = "notification"
    /// The user deleted the account inside the app (App Store Review Guideline 5.1.1(v)).
    case inApp = "in-app"
    /// The reconciler found it (a refresh-token probe rejected by Apple: a lost revocation).
    case reconciler = "reconciler"
}

/// What the evidence of a request's erasure proves.
public enum ReportVerification: String, Hashable, Sendable, CaseIterable {
    /// Every step of every job is `done`, each on a check the service made itself: a verification query that
    /// counted 0, data keys it destroyed.
    case verified = "verified"
    /// Every step is `done`, at least one on the target's own word: a webhook that answered 2xx, or answered 202
    /// and called back. The service cannot look into the app backend; the step's evidence is that answer.
    case acknowledged = "acknowledged"
    /// Some step ended `unverified`: the target reported success but nothing proves it.
    case unverified = "unverified"
    /// Some step failed after its retries.
    case failed = "failed"
    /// Steps are still open.
    case pending = "pending"
    /// No erasure job is known for the request.
    case none = "none"
}
