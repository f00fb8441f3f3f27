import LifecycleCore

/// The outcome of asking to start a reconcile run: only one runs at a time across every process sharing the
/// store. A run whose process died stops counting once its lease has run out, or at once when it is marked
/// abandoned (``StoreWriter/abandonReconcileRun(id:at:reason:)``).
public enum ReconcileRunClaim: Sendable, Hashable {
    case started(id: Int64)
    /// Another run holds the lock.
    case busy(ReconcileRunHolder)
}

/// The run that holds the reconcile lock: which one, whose (its owner, `host:pid:start` for the service's
/// own processes), since when and until when its lease holds.
public struct ReconcileRunHolder: Sendable, Hashable {
    public var id: Int64
    public var owner: String
    public var startedAt: Instant
    public var leasedUntil: Instant

    public init(id: Int64, owner: String, startedAt: Instant, leasedUntil: Instant) {
        self.id = id
        self.owner = owner
        self.startedAt = startedAt
        self.leasedUntil = leasedUntil
    }
}

public enum ReconcileRunStatus: String, Sendable, Hashable, CaseIterable {
    case running, completed, failed
    /// The process running it died; found with an expired lease by the next run.
    case abandoned
}

/// One reconcile run as recorded: when, how long, what it read and found.
public struct StoredReconcileRun: Sendable, Hashable {
    public var id: Int64
    public var app: String?
    public var status: ReconcileRunStatus
    public var startedAt: Instant
    public var finishedAt: Instant?
    /// Counts and per-code totals as JSON text, written by the reconciler.
    public var summary: String?
    public var error: String?

    public init(
        id: Int64, app: String?, status: ReconcileRunStatus, startedAt: Instant, finishedAt: Instant?, summary: String?,
        error: String?
    ) {
        self.id = id
        self.app = app
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.summary = summary
        self.error = error
    }
}

/// Member names of a run's `summary` (an array of one object per app) that are read back after the run: the
/// reconcile writes them, the deletion report reads them to say what the last run compared.
public enum ReconcileSummaryKey {
    public static let app = "app"
    public static let recordsCompared = "recordsCompared"
    public static let recordsRead = "recordsRead"
}

/// A finding as kept between runs: the same discrepancy seen again updates its row (never a duplicate), and
/// one no longer seen is marked resolved by the next complete run of its app.
public struct StoredFinding: Sendable, Hashable {
    public var id: Int64
    public var app: String
    public var finding: Finding
    public var firstSeenAt: Instant
    public var lastSeenAt: Instant
    public var lastRunID: Int64
    public var resolvedAt: Instant?

    public init(
        id: Int64, app: String, finding: Finding, firstSeenAt: Instant, lastSeenAt: Instant, lastRunID: Int64,
        resolvedAt: Instant?
    ) {
        self.id = id
        self.app = app
        self.finding = finding
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.lastRunID = lastRunID
        self.resolvedAt = resolvedAt
    }
}
