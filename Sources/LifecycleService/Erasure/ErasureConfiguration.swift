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
}

/// Where an erasure step erases (`apps[].targets.NAME`).
public enum ErasureTarget: Sendable, Hashable {
    /// POST `account.erasure.requested` to the app's webhook: 2xx done, 202 waits for the callback.
    case webhook
    /// Statements bound to `:sub` against the app's SQLite file, then a verification query that must count 0.
    case sqlite(path: String, statements: [String], verify: String?)
    /// The same against the app's PostgreSQL database at `url` (libpq's URI form; keep the password in
    /// `PGPASSFILE`, never in a log: only ``redactedDescription`` is shown).
    case postgres(url: String, statements: [String], verify: String?)

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
public struct ErasureRunnerConfiguration: Sendable {
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

    public init() {}

    public var retrySchedule: RetrySchedule {
        RetrySchedule(
            baseDelayMilliseconds: Int64(baseDelayMilliseconds), multiplier: 2,
            maximumDelayMilliseconds: Int64(maxDelayMilliseconds), maximumAttempts: maxAttempts)
    }
}
