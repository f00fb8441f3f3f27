import AppleNotifications
import Foundation
import HTTP
import LifecycleCore
import LifecycleStore

/// The long-lived parts every command that touches state shares: configuration, store, keys, verifier, log,
/// metrics, clock. Built once from the configuration; `close()` releases the store.
public final class ServiceContext: Sendable {
    public let configuration: ServiceConfiguration
    public let store: any Store
    public let keys: JWKSCache
    public let verifier: NotificationVerifier
    public let log: EventLog
    public let metrics: MetricsRegistry
    public let clock: any WallClock
    public let pseudonymizer: KeyedSubjectPseudonymizer
    public let ingestor: NotificationIngestor
    /// Rung after a commit that may have enqueued outbox messages, so delivery starts without waiting for a poll.
    let outboxSignal = WakeSignal()
    /// The public listener's certificate and key, when it serves HTTPS itself.
    public let tls: TLSServerContext?
    /// Signing secrets of the apps that have a webhook, by app id.
    let webhookSigners: [String: WebhookSigner]
    /// The one way accounts change, shared by every entry point.
    public let transitions: AccountTransitionRecorder
    /// Seals and opens personal values under the subjects' data keys (master keys from `secrets`).
    public let vault: SubjectKeyVault

    public init(
        configuration: ServiceConfiguration, store: any Store, keys: JWKSCache, log: EventLog,
        pseudonymizer: KeyedSubjectPseudonymizer, metrics: MetricsRegistry, clock: any WallClock,
        vault: SubjectKeyVault, webhookSigners: [String: WebhookSigner] = [:], tls: TLSServerContext? = nil
    ) {
        self.vault = vault
        self.webhookSigners = webhookSigners
        self.tls = tls
        self.configuration = configuration
        self.store = store
        self.keys = keys
        self.log = log
        self.pseudonymizer = pseudonymizer
        self.metrics = metrics
        self.clock = clock
        self.verifier = NotificationVerifier(
            keys: keys,
            configuration: NotificationVerifier.Configuration(
                issuer: configuration.apple.issuer, audiences: configuration.allClientIDs,
                leewaySeconds: Int64(configuration.apple.leewaySeconds)))
        self.transitions = AccountTransitionRecorder(
            effects: EffectRecorder(
                webhookApps: Set(configuration.apps.filter { $0.webhook != nil }.map(\.id)),
                erasure: ErasureScheduler(configuration: configuration)))
        self.ingestor = NotificationIngestor(
            configuration: configuration, verifier: verifier, store: store, log: log, metrics: metrics, clock: clock,
            transitions: transitions, committed: outboxSignal, vault: vault)
    }

    /// Opens the store (creating and migrating it), attaches the master keys (``SubjectKeyVault/attach(to:at:)``),
    /// seals what an older release kept in the clear (``PersonalDataConversion``), and prepares the key cache
    /// without fetching yet.
    public static func open(
        configuration: ServiceConfiguration, clock: any WallClock = SystemWallClock(),
        logSink: @escaping EventLog.Sink = EventLog.standardError,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> ServiceContext {
        let pseudonymKey = try SecretFile.readOrCreate(path: configuration.pseudonymKeyFile)
        let pseudonymizer = KeyedSubjectPseudonymizer(key: pseudonymKey)
        let log = EventLog(level: configuration.logLevel, pseudonymizer: pseudonymizer, clock: clock, sink: logSink)
        let webhookSigners = try loadWebhookSigners(configuration)
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
        let keys = JWKSCache(
            fetcher: source.makeFetcher(
                limits: JWKSFetchLimits(timeoutSeconds: Double(configuration.apple.jwksFetchTimeoutSeconds))),
            configuration: JWKSCache.Configuration(
                minimumRefreshInterval: Int64(configuration.apple.jwksMinRefreshSeconds)),
            now: { clock.now() })
        return ServiceContext(
            configuration: configuration, store: store, keys: keys, log: log, pseudonymizer: pseudonymizer,
            metrics: MetricsRegistry(), clock: clock, vault: vault, webhookSigners: webhookSigners, tls: tls)
    }

    /// Every app with a webhook needs its signing secret at start-up, not at the first delivery.
    static func loadWebhookSigners(
        _ configuration: ServiceConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> [String: WebhookSigner] {
        var signers: [String: WebhookSigner] = [:]
        for app in configuration.apps {
            guard let webhook = app.webhook else { continue }
            let variable = "LIFECYCLE_WEBHOOK_SECRET_" + app.id.uppercased().replacingOccurrences(of: "-", with: "_")
            guard
                let secret = try SecretFile.read(path: webhook.secretFile, variable: variable, environment: environment)
            else {
                throw ConfigurationError(
                    file: "configuration", field: "apps[\(app.id)].webhook.secretFile", problem: "no signing secret",
                    fix: "set secretFile to a file holding the secret, or set \(variable)")
            }
            signers[app.id] = WebhookSigner(secret: secret)
        }
        return signers
    }

    /// The store with its master keys attached (``SubjectKeyVault/attach(to:at:)``), retired keys gone from
    /// the key file, and what an older release kept in the clear sealed (``PersonalDataConversion``).
    static func openStore(
        _ configuration: ServiceConfiguration, log: EventLog, clock: any WallClock, environment: [String: String]
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

    static func openStore(_ storage: StorageConfiguration) async throws -> any Store {
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
