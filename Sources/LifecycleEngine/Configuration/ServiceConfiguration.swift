import AppleAccountAPI
import LifecycleCore

/// Everything `lifecycle.json` configures, with the documented defaults applied. Secrets are never values in
/// this file: only paths to files holding them, or environment variables (see ``SecretSource``).
public struct ServiceConfiguration: Sendable {
    public var storage: StorageConfiguration
    public var publicListener: PublicListenerConfiguration
    public var admin: AdminListenerConfiguration
    public var apple: AppleConfiguration
    public var apps: [AppConfiguration]
    public var outbox: OutboxConfiguration
    public var reports: ReportsConfiguration
    /// Key for the keyed pseudonyms (HMAC-SHA256 of app and sub) used in logs. Created on first use.
    public var pseudonymKeyFile: String
    public var logLevel: LogLevel
    /// Directory of the configuration file; relative paths in the file are resolved against it.
    public var baseDirectory: String
    /// Where the erasure policy files are (`policiesDirectory`, default `policies`, resolved like any path).
    public var policiesDirectory: String = "policies"
    /// The policies the apps' erasure mappings name, validated, by id.
    public var policies: [String: ErasurePolicy] = [:]
    /// The erasure job runner's settings (`erasure`).
    public var erasure = ErasureRunnerConfiguration()
    /// The reconciler's settings (`reconcile`).
    public var reconcile = ReconcileConfiguration()
    /// How long the store keeps what expires (`retention`).
    public var retention = RetentionConfiguration()
    /// Where the master keys are (`secrets`).
    public var secrets = SecretsConfiguration()
    /// Master-key rotation (`keys`).
    public var keys = KeysConfiguration()

    /// The app a token's `aud` routes to, or nil when no app lists that client ID.
    public func app(forClientID clientID: String) -> AppConfiguration? {
        apps.first { $0.clientIDs.contains(clientID) }
    }

    /// Every client ID the verifier accepts as `aud`.
    public var allClientIDs: Set<String> { Set(apps.flatMap(\.clientIDs)) }
}

public struct StorageConfiguration: Sendable, Equatable {
    /// `sqlite:PATH` (the default, `sqlite:var/lifecycle.sqlite`) or a PostgreSQL URL (`postgres://` or
    /// `postgresql://`, libpq's URI form). Overridden by `LIFECYCLE_DATABASE_URL`. May hold a password: show
    /// ``redactedURL`` instead.
    public var url: String
    /// How long a writer waits for a lock held by another process before failing.
    public var busyTimeoutMilliseconds: Int
    /// Largest number of writes that share one commit.
    public var maxBatch: Int

    /// The SQLite file path, when the URL names one.
    public var sqlitePath: String? {
        url.hasPrefix("sqlite:") ? String(url.dropFirst("sqlite:".count)) : nil
    }

    /// The URL as logs and command output may show it: a PostgreSQL password, in the user part or as a
    /// `password=` parameter (https://www.postgresql.org/docs/15/libpq-connect.html §34.1.1.2), reads `***`.
    public var redactedURL: String {
        guard let scheme = url.range(of: "://") else { return url }
        var rest = Substring(url[scheme.upperBound...])
        var result = String(url[..<scheme.upperBound])
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            result += user.firstIndex(of: ":").map { user[..<$0] + ":***" } ?? String(user)
            result += authority[at...]
        } else {
            result += authority
        }
        rest = rest[authorityEnd...]
        guard let query = rest.firstIndex(of: "?") else { return result + rest }
        result += rest[...query]
        let parameters = rest[rest.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
        result += parameters.map { $0.lowercased().hasPrefix("password=") ? "password=***" : String($0) }
            .joined(separator: "&")
        return result
    }
}

public struct PublicListenerConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// The path registered with Apple, e.g. `/apple/notifications`.
    public var notificationPath: String
    /// Largest accepted notification body. Real bodies are about 1 KiB.
    public var maxBodyBytes: Int
    public var headerTimeoutMilliseconds: Int
    public var bodyTimeoutMilliseconds: Int
    public var idleTimeoutMilliseconds: Int
    public var writeTimeoutMilliseconds: Int
    public var maxConnections: Int
    public var tls: TLSConfiguration?
    /// Whether `GET /metrics` is also served here. Default false: the metrics reveal traffic and error rates
    /// to anyone who can reach the listener Apple posts to (bound to 0.0.0.0 in the example), so they are
    /// served on the admin listener behind its bearer token.
    public var metrics: Bool = false
}

public struct TLSConfiguration: Sendable, Equatable {
    public var certificateFile: String
    public var privateKeyFile: String
}

public struct AdminListenerConfiguration: Sendable {
    public var enabled: Bool
    public var host: String
    public var port: Int
    /// Bearer token source: `tokenFile`, or `LIFECYCLE_ADMIN_TOKEN`.
    public var tokenFile: String?
}

public struct AppleConfiguration: Sendable {
    /// `https://…` URL, `file:` URL or a path to a JWKS JSON file.
    public var jwks: String
    public var issuer: String
    public var leewaySeconds: Int
    /// A `kid` missing from the cached set triggers at most one JWKS fetch per this interval.
    public var jwksMinRefreshSeconds: Int
    public var jwksFetchTimeoutSeconds: Int
    /// Apple's REST API (`restBaseURL`, default `https://appleid.apple.com`): token exchange, refresh, revoke
    /// and `/auth/keys` for the `id_token`s of a code exchange. Tests point it at a stand-in on loopback; the
    /// peer is verified against OpenSSL's default trust store (`SSL_CERT_FILE` names another one).
    public var restBaseURL: AppleBaseURL = .apple
    /// Bound on each call to the REST API (`restTimeoutSeconds`, default 10).
    public var restTimeoutSeconds: Int = 10
    /// How an in-app deletion's revocation is attempted and proved (`revocation`).
    public var revocation = AppleRevocationConfiguration()
    /// The daily probe of held refresh tokens (`probe`).
    public var probe = AppleProbeConfiguration()
}

/// The daily probe of `serve` (`apple.probe`): for every app with `signInWithApple`, each held refresh token
/// is validated with one `refresh_token` grant at most once a day (Apple, "Generate and validate tokens"; the
/// store enforces the day for every instance), so that a revocation or deletion whose notification never
/// arrived is found: `invalid_grant` ends the account's sessions and leaves a `credentials-invalid` finding.
/// On by default: it only runs for apps whose credentials are configured, whose operators linked tokens so
/// that Apple's answer can be asked for, and a lost notification otherwise stays invisible.
public struct AppleProbeConfiguration: Sendable, Hashable {
    /// Default true.
    public var enabled = true
    /// Grants per second this instance sends at most, over every app. Default 5 (432,000 tokens a day).
    public var maxPerSecond = 5
    /// How long a probe that got no answer (5xx, 429, a timeout) waits before its token is tried again, within
    /// the same day. Default 3600 s.
    public var retrySeconds = 3_600
    /// Longest sleep between looks for due tokens. Default 60 s.
    public var pollSeconds = 60

    public init() {}
}

/// The revocation worker of `serve` (`apple.revocation`): every attempt calls `/auth/revoke`, then proves it
/// with one `refresh_token` grant that must answer `invalid_grant` (Apple, "Revoke tokens": a 200 from
/// `/auth/revoke` proves nothing). Failed attempts are retried with capped exponential backoff and full jitter
/// (``RetrySchedule``).
public struct AppleRevocationConfiguration: Sendable, Hashable, RetryingWork {
    /// Attempts before a revocation is given up (`failed`, or `unverified` when Apple accepted a revoke).
    /// Default 12.
    public var maxAttempts = 12
    /// The retry delay cap after the first failure. Default 5 s.
    public var baseDelayMilliseconds = 5_000
    /// No retry delay exceeds this. Default 1 hour.
    public var maxDelayMilliseconds = 3_600_000
    /// Revokes that Apple accepted but the token still obtained tokens, before the revocation is recorded as
    /// `unverified` (a `revocation-unverified` finding). Default 2: one revoke, one retried revoke.
    public var verifyAttempts = 2
    /// How long a claimed revocation is reserved for this instance. Default 60 s (two REST timeouts and more).
    public var leaseSeconds = 60
    /// Longest sleep between looks at the queue. Default 1000 ms.
    public var pollMilliseconds = 1_000

    public init() {}
}

/// An app's Sign in with Apple credentials (`signInWithApple`): what every call to Apple's REST API for the
/// app signs its client secret with. The private key is read from ``privateKeyFile`` (mode 0600) when the
/// configuration loads; its description never shows the key.
public struct AppleAccountConfiguration: Sendable {
    public var credentials: AppleCredentials
    /// The `.p8` file the key was read from, for messages.
    public var privateKeyFile: String

    public init(credentials: AppleCredentials, privateKeyFile: String) {
        self.credentials = credentials
        self.privateKeyFile = privateKeyFile
    }
}

public struct AppConfiguration: Sendable {
    /// Short name used in URLs, reports and the store (`shop`).
    public var id: String
    /// The values Apple puts in `aud` for this app (its primary App ID / Services IDs).
    public var clientIDs: [String]
    /// Where session-termination, e-mail-forwarding and erasure messages go; nil sends none.
    public var webhook: WebhookConfiguration?
    /// The erasure mapping (`policy`, `targets`, `categories`); nil when the app maps none.
    public var erasure: AppErasureConfiguration? = nil
    /// The app's own records for the nightly reconcile; nil skips the comparison with them (the findings about
    /// the service's own jobs and accounts, gaps and recycled identifiers still come).
    public var records: RecordSource? = nil
    /// Credentials for Apple's REST API (`signInWithApple`); nil when the app keeps no Apple tokens.
    public var signInWithApple: AppleAccountConfiguration? = nil
    /// The app's other identity providers (`signals`): Shared Signals transmitters pushing security events.
    public var signals: [SignalProviderConfiguration] = []

    /// How a record of ``records`` that names a provider maps to the store's key.
    public var recordKeys: AppRecordKeys {
        AppRecordKeys(providers: Dictionary(signals.map { ($0.id, $0.recordSubject) }, uniquingKeysWith: { a, _ in a }))
    }
}

public struct WebhookConfiguration: Sendable {
    /// `http://` or `https://` URL of the app backend's receiver.
    public var url: String
    /// File holding the signing secret (`whsec_…` base64 as Standard Webhooks issues, or raw text); the
    /// environment variable `LIFECYCLE_WEBHOOK_SECRET_<APP>` (app id upper-cased, `-` as `_`) overrides it.
    public var secretFile: String?
}

/// Where deletion-compliance reports go and which keys pseudonymise and sign them (DESIGN.md §9).
public struct ReportsConfiguration: Sendable {
    /// Root of `<app>/<yyyy>/<date>-deletion-compliance.*` and `<app>/manifest.jsonl` (default `reports`).
    public var directory: String
    /// Ed25519 PKCS#8 PEM key that signs manifest lines; created (0600) with `NAME.pub.pem` beside it when
    /// missing (default `var/secrets/report-ed25519.pem`).
    public var signingKeyFile: String
    /// HMAC key of the subject pseudonyms in reports; created (0600) when missing. Default: the top-level
    /// `pseudonymKeyFile`, so reports, logs, `jobs list` and the admin API name a person alike. Losing it makes
    /// `report lookup` unable to find old subjects.
    public var pseudonymKeyFile: String
}

/// Secrets that are files (`secrets`): only paths, never the secrets themselves.
public struct SecretsConfiguration: Sendable {
    /// The master keys that wrap the subjects' data keys (``MasterKeyring``): one 64-hex-digit key per line,
    /// mode 0600, created with one fresh key when missing. `LIFECYCLE_MASTER_KEY` overrides it. Losing it makes
    /// every sealed value unreadable; keep it out of the database's backups. Default `var/secrets/master.key`.
    public var masterKeyFile = "var/secrets/master.key"

    public init() {}
}

/// Master-key rotation (`keys`, ``MasterKeyRotation``).
public struct KeysConfiguration: Sendable {
    /// When set, `serve` rotates the master key once the one in force is this many days old (the bound after
    /// which no copy of an erased subject's data, in any backup or log, can be opened without a copy of the old
    /// master key kept elsewhere). Default: never; rotate
    /// with `lifecycle keys rotate`.
    public var rotateEveryDays: Int?
    /// How often `serve` looks at the master key file for a rewrite by a rotation (a stat call). Default 5 s.
    public var fileCheckSeconds = 5
    /// Data keys re-wrapped per transaction during a rotation. Default 500.
    public var rewrapBatchSize = 500
    /// How long `keys rotate` waits for every running instance to hold a new master key before switching to
    /// it. Default 120 s.
    public var instanceWaitSeconds = 120

    public init() {}
}

/// How the outbox dispatcher delivers webhooks (DESIGN.md §6).
public struct OutboxConfiguration: Sendable, RetryingWork {
    /// Attempts before a message is `dead` (the first delivery counts).
    public var maxAttempts: Int
    public var baseDelayMilliseconds: Int
    public var maxDelayMilliseconds: Int
    /// How long a claimed message is reserved for this instance before another may take it.
    public var leaseSeconds: Int
    /// Messages delivered at once (different accounts; one account's messages are always in order).
    public var concurrency: Int
    public var timeoutMilliseconds: Int
    /// Longest sleep between polls when nothing is due (new messages wake the dispatcher at once).
    public var pollMilliseconds: Int
}

public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
