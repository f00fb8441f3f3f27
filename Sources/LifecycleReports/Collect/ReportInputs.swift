import LifecycleCore
import LifecycleStore

/// What the collect stage gathered for one app and period, before pseudonymisation: the raw material
/// ``ReportAssembler`` turns into a ``ReportDataset``. Holds raw `sub`s: never written anywhere as is.
public struct ReportInputs: Sendable {
    public var app: String
    public var period: ReportPeriod
    public var generatedAt: Instant
    /// Account inputs with event time in the period (every kind and disposition).
    public var events: [ReportEvent]
    /// Erasure and retention-purge jobs of the subjects those events concern.
    public var jobs: [ReportSubjectJob]
    /// The last reconcile run of the app, nil when none is known.
    public var findingRun: ReportFindingRun?
    /// The data keys of the subjects concerned, by subject (destroyed ones name the master key in force then).
    public var subjectKeys: [String: [StoredSubjectKey]]
    /// Every master key the store has known, with its state and dates.
    public var masterKeys: [StoredMasterKey]
    /// The Apple token revocations of the subjects concerned, by subject (``StoreReader/appleRevocation(app:subject:)``).
    public var appleRevocations: [String: StoredAppleRevocation] = [:]
    /// Notifications stored with event time in the period, by type as Apple sent it (unknown types too: they
    /// are kept, acknowledged and applied to nothing).
    public var notificationTypes: [String: Int] = [:]
    /// The extensions, holds and refusals of the subjects concerned, by subject
    /// (``StoreReader/requestDecisions(app:subject:)``).
    public var requestDecisions: [String: [StoredRequestDecision]] = [:]
    /// Inputs of the period already counted and let go (the collector's pages), besides ``events``.
    public var countedEvents = ReportEventTally()

    /// Every input of the period counted: ``countedEvents`` and ``events``.
    public var eventTally: ReportEventTally {
        var tally = countedEvents
        tally.count(events, period: period)
        return tally
    }

    public init(
        app: String, period: ReportPeriod, generatedAt: Instant, events: [ReportEvent], jobs: [ReportSubjectJob],
        findingRun: ReportFindingRun?, subjectKeys: [String: [StoredSubjectKey]] = [:],
        masterKeys: [StoredMasterKey] = []
    ) {
        self.subjectKeys = subjectKeys
        self.masterKeys = masterKeys
        self.app = app
        self.period = period
        self.generatedAt = generatedAt
        self.events = events
        self.jobs = jobs
        self.findingRun = findingRun
    }
}

/// One account input as the history recorded it.
public struct ReportEvent: Hashable, Sendable {
    public var subject: String
    public var kind: AccountInputKind
    /// The history source: `notification`, `replay`, `admin` or `reconciler`.
    public var source: String
    public var eventTime: Instant
    public var receivedAt: Instant
    public var disposition: AccountDisposition

    public init(
        subject: String, kind: AccountInputKind, source: String, eventTime: Instant, receivedAt: Instant,
        disposition: AccountDisposition
    ) {
        self.subject = subject
        self.kind = kind
        self.source = source
        self.eventTime = eventTime
        self.receivedAt = receivedAt
        self.disposition = disposition
    }
}

/// One erasure or retention-purge job of a subject.
public struct ReportSubjectJob: Hashable, Sendable {
    public var subject: String
    public var job: ErasureJob
    /// Per step (same order as `job.steps`): when its first attempt started, nil when unknown or none yet.
    public var stepsStartedAt: [Instant?]
    /// Why the job was cancelled (``ErasureScheduler/relinkReason`` and the sign-in), nil unless cancelled.
    public var cancelReason: String?

    public init(subject: String, job: ErasureJob, stepsStartedAt: [Instant?] = [], cancelReason: String? = nil) {
        self.subject = subject
        self.job = job
        self.stepsStartedAt = stepsStartedAt
        self.cancelReason = cancelReason
    }
}

/// The findings of one reconcile run.
public struct ReportFindingRun: Hashable, Sendable {
    public var ranAt: Instant
    public var findings: [Finding]
    /// Whether that run compared the app's own records with the accounts, and how many it read, from the run's
    /// recorded summary; nil when the run recorded neither (a run of an earlier release).
    public var recordsCompared: Bool?
    public var recordsRead: Int?

    public init(ranAt: Instant, findings: [Finding], recordsCompared: Bool? = nil, recordsRead: Int? = nil) {
        self.ranAt = ranAt
        self.findings = findings
        self.recordsCompared = recordsCompared
        self.recordsRead = recordsRead
    }
}

extension ReportSubjectJob {
    /// Whether a re-link's cancellation withdrew `step`: a step done before the re-link cancelled its job
    /// erased, and stays done; only the others were withdrawn.
    func withdrew(_ step: ErasureStep) -> Bool { job.status == .cancelled && step.status != .done }
}
