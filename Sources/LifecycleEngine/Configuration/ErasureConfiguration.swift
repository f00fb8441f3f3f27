import LifecycleCore

/// An app's erasure mapping (DESIGN.md §7): which policy applies, which targets hold its data, and which
/// targets hold each data category. Present only when the app's configuration has `categories`; an app without
/// one schedules no erasure jobs (start-up logs a warning naming it).
public struct AppErasureConfiguration: Sendable {
    /// The policy's `id` (a file in the policies directory); default `default`.
    public var policyID: String
    /// Target name to target; ``ErasurePlanner/selfTarget`` is built in and never listed here.
    public var targets: [String: ErasureTarget]
    /// Canonical category name to target names.
    public var categories: [String: [String]]
    /// `targets.NAME.backupRetentionDays`: how long the operator keeps backups of that target, where it
    /// differs from `erasure.backupRetentionDays`.
    public var backupRetentionDays: [String: Int] = [:]

    /// How long backups holding `target`'s copy of the data are kept, in days, as configured; nil when not
    /// stated. `self` is the service's own store.
    public func backupRetentionDays(of target: String, default fallback: Int?) -> Int? {
        backupRetentionDays[target] ?? fallback
    }
}

/// Where an erasure step erases (`apps[].targets.NAME`).
public enum ErasureTarget: Sendable, Hashable {
    /// POST `account.erasure.requested` to the app's webhook: 2xx done, 202 waits for the callback.
    case webhook
    /// Statements bound to `:sub` against the app's SQLite file, then a verification query that must count 0.
    /// With `secureDelete` (default), the connection sets `secure_delete` and, after the statements,
    /// checkpoints and truncates the file's write-ahead log, so the erased rows leave no bytes behind.
    case sqlite(path: String, statements: [String], verify: String?, secureDelete: Bool)
    /// The same against the app's PostgreSQL database at `url` (libpq's URI form; keep the password in
    /// `PGPASSFILE`, never in a log: only ``redactedDescription`` is shown); after the statements, each table
    /// in `vacuum` is vacuumed, so the erased rows' old versions leave the heap.
    case postgres(url: String, statements: [String], verify: String?, vacuum: [String])

    public var kind: String {
        switch self {
        case .webhook: "webhook"
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }
}

/// How the erasure job runner works (top-level `erasure` object). Defaults suit production; tests shorten the
/// delays.
public struct ErasureRunnerConfiguration: Sendable, RetryingWork {
    /// Whether `serve` runs the job runner in the background. Default true; false leaves erasure to
    /// `lifecycle jobs run` (cron, a dedicated instance).
    public var runInServe: Bool = true
    /// Attempts per step before it is `failed` (the first counts). Default 8.
    public var maxAttempts: Int = 8
    /// The retry delay cap after the first failure (full-jitter backoff, ``RetrySchedule``). Default 60 s.
    public var baseDelayMilliseconds: Int = 60_000
    /// No retry delay exceeds this. Default 6 hours: a deadline of days leaves room for many attempts.
    public var maxDelayMilliseconds: Int = 21_600_000
    /// How long a claimed step is reserved for this runner. Must exceed the longest step (timeouts included).
    public var leaseSeconds: Int = 300
    /// How often the background runner inside `serve` looks for due steps. Default 10 s.
    public var pollMilliseconds: Int = 10_000
    /// Steps claimed per round. Default 16.
    public var batchSize: Int = 16
    /// Webhook request timeout. Default 10 s.
    public var timeoutMilliseconds: Int = 10_000
    /// How long a `sqlite` target waits for the app's own locks. Default 5 s.
    public var busyTimeoutMilliseconds: Int = 5_000
    /// How long a webhook target that answered 202 has to call back before the step is `unverified` (the
    /// target acknowledged but never confirmed). Default 7 days.
    public var callbackTimeoutSeconds: Int = 604_800
    /// How long the operator keeps backups of the service's store and, unless a target says otherwise, of
    /// the erasure targets, in days: each deletion in the report states by when every backup copy is beyond
    /// use. Default: not stated (the report says so).
    public var backupRetentionDays: Int?

    public init() {}
}
