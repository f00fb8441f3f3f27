import LifecycleCore

/// One deletion request in a report: a pseudonymous subject, what happened, under which policy, by when it
/// was due and what each target did (DOMAIN.md §6). Never carries the raw `sub`, e-mail or token.
public struct ReportSubjectRow: Hashable, Sendable {
    /// Keyed pseudonym of (app, sub); `lifecycle report lookup` recomputes it for a data-subject inquiry.
    public var pseudonym: String
    /// The account input: `account-deleted`, `in-app-deletion` or `consent-revoked`.
    public var eventType: String
    /// The identity provider the account belongs to: `apple`, or the `id` of one of the app's `signals`
    /// providers (``ProviderSubject/providerName(ofAccountKey:)``), so a request from Google's RISC is told
    /// apart from an Apple deletion without the raw key.
    public var provider: String = "apple"
    public var source: ReportEventSource
    /// Stored from an archive by `lifecycle ingest` (a `notification` source): nobody was answered then.
    public var replayed = false
    public var eventTime: Instant
    public var receivedAt: Instant
    /// `id@version#sha256` frozen on the jobs; nil when no job is known.
    public var policy: String?
    /// The latest absolute deadline of the request's erasure jobs; nil when no job is known.
    public var deadline: Instant?
    public var targets: [ReportTargetOutcome]
    public var verification: ReportVerification
    public var retained: [ReportRetainedItem]
    public var outcome: ReportOutcome
    /// True when completed by every deadline, false when a deadline was missed, nil while undecided.
    public var onTime: Bool?
    /// When the last job completed; nil until all have.
    public var completedAt: Instant?
    /// Days from event to completion, rounded to 3 decimals; nil until completed.
    public var daysToComplete: Double?
    /// Where copies may remain and by when none can be used; nil when no erasure job is known.
    public var remainingCopies: ReportRemainingCopies? = nil
    /// The Apple token revocation the deletion queued (in-app deletions); nil when it asked for none.
    public var appleRevocation: ReportAppleRevocation? = nil
    /// What a re-link cancelled of the request; nil when nothing was cancelled.
    public var cancellation: ReportCancellation? = nil
    /// The extension of its deadline; nil when none was recorded.
    public var `extension`: ReportExtension? = nil
    /// The legal holds placed on it, oldest first (each with its release, when released).
    public var holds: [ReportHold] = []
    /// The refusal and its basis; nil when it was not refused.
    public var denial: ReportDenial? = nil

    /// True while a legal hold is in force.
    public var isHeld: Bool { holds.contains { $0.releasedAt == nil } }

    /// A request someone must look at or answer for: completed late or past a deadline, failed or unproven,
    /// ever held, extended or denied. What the HTML page lists when the period has more requests than it lists
    /// one by one (``ReportDataset/pageListsEveryRequest``).
    public var isException: Bool {
        onTime == false || outcome == .overdue || outcome == .failed || verification == .unverified
            || !holds.isEmpty || denial != nil || self.extension != nil
    }

    /// When the service had recorded the request durably and so acknowledged it: the answer to Apple or the app
    /// (200, `accepted`) is sent only after the commit of the transaction stamped `receivedAt`. Nil for a
    /// discovery of the reconciler and for a replay from an archive, which answered nobody.
    public var acknowledgedAt: Instant? { source == .reconciler || replayed ? nil : receivedAt }

    /// The nature of the response (``ReportResponse``).
    public var response: ReportResponse { denial == nil ? outcome.response : .denied }

    /// When the response was given: completion of the erasure, or the re-link that withdrew it; nil while open.
    public var respondedAt: Instant? {
        switch response {
        case .complied, .compliedInPart: completedAt
        case .withdrawn: cancellation?.cancelledAt
        case .denied: denial?.deniedAt
        case .open: nil
        }
    }

    public init(
        pseudonym: String, eventType: String, source: ReportEventSource, eventTime: Instant, receivedAt: Instant,
        policy: String?, deadline: Instant?, targets: [ReportTargetOutcome], verification: ReportVerification,
        retained: [ReportRetainedItem], outcome: ReportOutcome, onTime: Bool?, completedAt: Instant?,
        daysToComplete: Double?
    ) {
        self.pseudonym = pseudonym
        self.eventType = eventType
        self.source = source
        self.eventTime = eventTime
        self.receivedAt = receivedAt
        self.policy = policy
        self.deadline = deadline
        self.targets = targets
        self.verification = verification
        self.retained = retained
        self.outcome = outcome
        self.onTime = onTime
        self.completedAt = completedAt
        self.daysToComplete = daysToComplete
    }

    /// Allowed days from event to deadline, rounded to 3 decimals; nil when no deadline is known.
    public var deadlineDays: Double? {
        deadline.map {
            ReportNumbers.rounded(
                Double($0.millisecondsSinceEpoch - eventTime.millisecondsSinceEpoch)
                    / Double(ReportPeriod.millisecondsPerDay))
        }
    }
}

/// One target's part of a request's erasure: status, attempts, timestamps and evidence.
public struct ReportTargetOutcome: Hashable, Sendable {
    public var target: String
    /// The policy entry the job came from, e.g. `rules[0]`.
    public var rule: String
    public var categories: [String]
    /// ``ErasureStepStatus`` canonical name, or `cancelled` when the job was cancelled.
    public var status: String
    public var attempts: Int
    public var firstAttemptAt: Instant?
    public var lastAttemptAt: Instant?
    public var finishedAt: Instant?
    /// The job's own absolute deadline.
    public var deadline: Instant
    public var rowsAffected: Int?
    public var verificationCount: Int?
    public var responseStatus: Int?
    public var errorCode: String?
    /// Data keys the step destroyed (`self`).
    public var keysDestroyed: Int?
    /// What was done so no pre-erasure byte stays in the files (``ErasureStepEvidence/hygiene``).
    public var hygiene: String?

    public init(
        target: String, rule: String, categories: [String], status: String, attempts: Int, firstAttemptAt: Instant?,
        lastAttemptAt: Instant?, finishedAt: Instant?, deadline: Instant, rowsAffected: Int?,
        verificationCount: Int?, responseStatus: Int?, errorCode: String?, keysDestroyed: Int? = nil,
        hygiene: String? = nil
    ) {
        self.keysDestroyed = keysDestroyed
        self.hygiene = hygiene
        self.target = target
        self.rule = rule
        self.categories = categories
        self.status = status
        self.attempts = attempts
        self.firstAttemptAt = firstAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.finishedAt = finishedAt
        self.deadline = deadline
        self.rowsAffected = rowsAffected
        self.verificationCount = verificationCount
        self.responseStatus = responseStatus
        self.errorCode = errorCode
    }
}

/// A category kept after the deletion because another law requires it (a policy `retain[]` entry).
public struct ReportRetainedItem: Hashable, Sendable {
    public var category: String
    /// The law that requires keeping it, quoted from the policy.
    public var basis: String
    /// When it must be purged.
    public var purgeAt: Instant
    /// `retained` until the purge job completes, then `purged`.
    public var status: String

    public init(category: String, basis: String, purgeAt: Instant, status: String) {
        self.category = category
        self.basis = basis
        self.purgeAt = purgeAt
        self.status = status
    }
}
