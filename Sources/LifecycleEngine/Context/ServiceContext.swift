import AppleAccountAPI
import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleStore
import Synchronization

/// The long-lived parts every command that touches state shares — store, keys, log, metrics, clock,
/// pseudonymizer, certificate — and the configuration in force with everything built from it
/// (``ActiveConfiguration``), which `serve` replaces on SIGHUP. `close()` releases the store.
public final class ServiceContext: Sendable {
    public let store: any Store
    public let keys: JWKSCache
    /// The key sets of the Shared Signals providers, kept across reloads.
    public let signalKeys: SignalKeyCaches
    public let log: EventLog
    public let metrics: MetricsRegistry
    public let clock: any LifecycleClock
    public let pseudonymizer: KeyedSubjectPseudonymizer
    /// Rung after a commit that may have enqueued outbox messages, so delivery starts without waiting for a poll.
    package let outboxSignal: WakeSignal
    /// The public listener's certificate and key, when it serves HTTPS itself.
    public let tls: TLSServerContext?
    private let active: Mutex<ActiveConfiguration>
    /// The log level asked for on the command line (`--log-level`, `LIFECYCLE_LOG_LEVEL`), which the
    /// configuration's `logLevel` does not override on reload.
    let logLevelOverride: LogLevel?

    /// What an ``ActiveConfiguration`` is built around: the parts that outlive a reload.
    struct Parts: Sendable {
        var store: any Store
        var keys: JWKSCache
        var log: EventLog
        var metrics: MetricsRegistry
        var clock: any LifecycleClock
        var outboxSignal: WakeSignal
        var vault: SubjectKeyVault
        var signalKeys: SignalKeyCaches
    }

    var parts: Parts {
        Parts(
            store: store, keys: keys, log: log, metrics: metrics, clock: clock, outboxSignal: outboxSignal,
            vault: vault, signalKeys: signalKeys)
    }

    /// The configuration in force: read it once per unit of work.
    public var current: ActiveConfiguration { active.withLock { $0 } }
    public var configuration: ServiceConfiguration { current.configuration }
    public var verifier: NotificationVerifier { current.verifier }
    public var ingestor: NotificationIngestor { current.ingestor }
    /// The Shared Signals push endpoints of the configuration in force.
    public var signals: SecurityEventIngestor { current.signals }
    /// The one way accounts change, shared by every entry point.
    public var transitions: AccountTransitionRecorder { current.transitions }
    package var webhookSigners: [String: WebhookSigner] { current.webhookSigners }
    /// Seals and opens personal values under the subjects' data keys (master keys from `secrets`); long-lived,
    /// its master keys replaced with the configuration on reload (``activate(_:masterKeys:)``).
    public let vault: SubjectKeyVault

    public init(
        configuration: ServiceConfiguration, store: any Store, keys: JWKSCache, log: EventLog,
        pseudonymizer: KeyedSubjectPseudonymizer, metrics: MetricsRegistry, clock: any LifecycleClock,
        vault: SubjectKeyVault, webhookSigners: [String: WebhookSigner] = [:], tls: TLSServerContext? = nil,
        logLevelOverride: LogLevel? = nil, signalKeys: SignalKeyCaches? = nil,
        signalReceivers: [String: SecurityEventReceiver] = [:]
    ) {
        let signalKeys = signalKeys ?? SignalKeyCaches(clock: clock)
        self.signalKeys = signalKeys
        self.logLevelOverride = logLevelOverride
        let outboxSignal = WakeSignal()
        self.outboxSignal = outboxSignal
        self.vault = vault
        self.tls = tls
        self.store = store
        self.keys = keys
        self.log = log
        self.pseudonymizer = pseudonymizer
        self.metrics = metrics
        self.clock = clock
        active = Mutex(
            ActiveConfiguration(
                configuration: configuration, webhookSigners: webhookSigners, adminToken: nil,
                signalReceivers: signalReceivers,
                parts: Parts(
                    store: store, keys: keys, log: log, metrics: metrics, clock: clock, outboxSignal: outboxSignal,
                    vault: vault, signalKeys: signalKeys)))
    }

    /// Builds the whole configuration in force from `configuration`: the webhook signing secrets are read
    /// here, so a missing one refuses the configuration before anything changes.
    package func prepare(
        _ configuration: ServiceConfiguration, adminToken: AdminBearerToken?, environment: [String: String]
    ) throws -> ActiveConfiguration {
        ActiveConfiguration(
            configuration: configuration,
            webhookSigners: try Self.loadWebhookSigners(configuration, environment: environment),
            adminToken: adminToken,
            signalReceivers: try SecurityEventReceiver.all(configuration, keys: signalKeys, environment: environment),
            parts: parts)
    }

    /// Puts `next` in force for every unit of work that starts from now on, and its log level; with
    /// `masterKeys` (the key file as read and checked for `next`, ``SubjectKeyVault/readMasterKeys(from:)``),
    /// the vault holds those keys from the same moment.
    package func activate(_ next: ActiveConfiguration, masterKeys: MasterKeyring.Contents? = nil) {
        if let masterKeys { vault.keyring.install(masterKeys) }
        active.withLock { $0 = next }
        log.setLevel(logLevelOverride ?? next.configuration.logLevel)
    }

    /// The admin token of the configuration in force replaced (read when `serve` starts its admin listener).
    package func activate(adminToken: AdminBearerToken?) {
        active.withLock { $0.adminToken = adminToken }
    }

    /// Opens the store (creating and migrating it), attaches the master keys (``SubjectKeyVault/attach(to:at:)``),
    /// seals what an older release kept in the clear (``PersonalDataConversion``), and prepares the key cache
    /// without fetching yet.
    public static func open(
        configuration: ServiceConfiguration, clock: any LifecycleClock = SystemClock(),
        logSink: @escaping EventLog.Sink = EventLog.standardError, logLevel: LogLevel? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> ServiceContext {
        let pseudonymKey = try SecretFile.readOrCreate(path: configuration.pseudonymKeyFile)
        let pseudonymizer = KeyedSubjectPseudonymizer(key: pseudonymKey)
        let log = EventLog(
            level: logLevel ?? configuration.logLevel, pseudonymizer: pseudonymizer, clock: clock, sink: logSink)
        let webhookSigners = try loadWebhookSigners(configuration, environment: environment)
        let signalKeys = SignalKeyCaches(clock: clock)
        let signalReceivers = try SecurityEventReceiver.all(configuration, keys: signalKeys, environment: environment)
        // An expired certificate or one that does not match its key stops start-up here, with one line.
        let tls = try configuration.publicListener.tls.map { files in
            try TLSServerContext(certificateChainFile: files.certificateFile, privateKeyFile: files.privateKeyFile)
        }
        let (store, vault) = try await openStore(
            configuration, log: log, clock: clock, environment: environment)
        guard let source = JWKSSource(configuration.apple.jwks) else {
            throw ConfigurationError(
                file: "configuration", field: "apple.jwks", problem: "unusable key source \(configuration.apple.jwks)",
                fix: "use an https:// URL, a file: URL or a path")
        }
        let fetcher: any JWKSFetcher
        switch source.makeFetcher(
            limits: JWKSFetchLimits(timeoutSeconds: Double(configuration.apple.jwksFetchTimeoutSeconds)))
        {
        case .success(let made): fetcher = made
        case .failure(let error):
            throw ConfigurationError(
                file: "configuration", field: "apple.jwks",
                problem: error.description,
                fix: "use https://host[:port]/path without query, fragment or user info")
        }
        let keys = JWKSCache(
            fetcher: fetcher,
            configuration: JWKSCache.Configuration(
                minimumRefreshInterval: Int64(configuration.apple.jwksMinRefreshSeconds)),
            now: { clock.now() })
        return ServiceContext(
            configuration: configuration, store: store, keys: keys, log: log, pseudonymizer: pseudonymizer,
            metrics: MetricsRegistry(), clock: clock, vault: vault, webhookSigners: webhookSigners, tls: tls,
            logLevelOverride: logLevel, signalKeys: signalKeys, signalReceivers: signalReceivers)
    }

    /// Every app with a webhook needs its signing secret at start-up, not at the first delivery.
    static func loadWebhookSigners(
        _ configuration: ServiceConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> [String: WebhookSigner] {
        var signers: [String: WebhookSigner] = [:]
        for app in configuration.apps {
            guard let webhook = app.webhook else { continue }
            let variable = "LIFECYCLE_WEBHOOK_SECRET_" + app.id.uppercased().replacingOccurrences(of: "-", with: "_")
            let field = "apps[\(app.id)].webhook.secretFile"
            let read: [UInt8]?
            do {
                read = try SecretFile.read(path: webhook.secretFile, variable: variable, environment: environment)
            } catch {
                throw ConfigurationError(
                    file: "configuration", field: field, problem: String(describing: error), fix: "")
            }
            guard let secret = read else {
                throw ConfigurationError(
                    file: "configuration", field: field, problem: "no signing secret",
                    fix: "set secretFile to a file holding the secret, or set \(variable)")
            }
            signers[app.id] = WebhookSigner(secret: secret)
        }
        return signers
    }

    /// The store with its master keys attached (``SubjectKeyVault/attach(to:at:)``), retired keys gone from
    /// the key file, and what an older release kept in the clear sealed (``PersonalDataConversion``).
    package static func openStore(
        _ configuration: ServiceConfiguration, log: EventLog, clock: any LifecycleClock, environment: [String: String]
    ) async throws -> (any Store, SubjectKeyVault) {
        let keyring = try MasterKeyring.load(file: configuration.secrets.masterKeyFile, environment: environment)
        let vault = SubjectKeyVault(keyring: keyring)
        let store = try await openStore(configuration.storage)
        do {
            try await vault.attach(to: store, at: clock.now())
            try await MasterKeyRotation.removeRetiredKeys(keyring: keyring, store: store, log: log)
            try await PersonalDataConversion(store: store, vault: vault, log: log, clock: clock).run()
        } catch {
            await store.close()
            throw error
        }
        return (store, vault)
    }

    package static func openStore(_ storage: StorageConfiguration) async throws -> any Store {
        if PostgresStore.accepts(url: storage.url) {
            return try await PostgresStore.open(url: storage.url)
        }
        guard let path = storage.sqlitePath else {
            throw ConfigurationError(
                file: "configuration", field: "storage.url", problem: "unsupported storage URL",
                fix: "use sqlite:PATH or postgres://USER@HOST/DATABASE")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try await SQLiteStore.open(
            path: path,
            configuration: SQLiteStoreConfiguration(
                busyTimeoutMilliseconds: Int32(storage.busyTimeoutMilliseconds), maximumBatchSize: storage.maxBatch))
    }

    public func close() async {
        await store.close()
    }
}
