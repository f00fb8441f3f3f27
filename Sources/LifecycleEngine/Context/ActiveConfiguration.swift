import AppleNotifications
import LifecycleCore

/// The configuration in force and everything built from it, as one value: the apps and their audiences (the
/// verifier), the account transitions with their effects (which apps get outbox messages, the erasure
/// scheduler with each app's policy), the webhook signers and endpoints, the admin token. A SIGHUP builds a
/// whole new one from the file and swaps it in at once (``ServiceContext/activate(_:)``), or keeps the running
/// one entirely when the file does not load; each unit of work (a request, a delivery round, an erasure
/// round, a reconcile run) reads one value and uses it to the end, so it never mixes two configurations.
public struct ActiveConfiguration: Sendable {
    public let configuration: ServiceConfiguration
    /// Signing secrets of the apps that have a webhook, by app id.
    let webhookSigners: [String: WebhookSigner]
    /// The one way accounts change, with this configuration's effects.
    public let transitions: AccountTransitionRecorder
    public let verifier: NotificationVerifier
    public let ingestor: NotificationIngestor
    /// The push endpoints of the apps' Shared Signals providers (`apps[i].signals`), by path.
    public let signals: SecurityEventIngestor
    /// Where and how the outbox delivers, per app.
    package let webhookDelivery: WebhookDelivery
    /// The admin listener's bearer token; nil when the admin listener is off (and for commands).
    package var adminToken: AdminBearerToken?
    /// Apple's REST API for the apps with `signInWithApple`.
    public let apple: AppleAccountServices

    /// Builds everything from `configuration` around the long-lived parts of `context`.
    init(
        configuration: ServiceConfiguration, webhookSigners: [String: WebhookSigner], adminToken: AdminBearerToken?,
        signalReceivers: [String: SecurityEventReceiver] = [:], parts: ServiceContext.Parts
    ) {
        self.configuration = configuration
        self.webhookSigners = webhookSigners
        self.adminToken = adminToken
        verifier = NotificationVerifier(
            keys: parts.keys,
            configuration: NotificationVerifier.Configuration(
                issuer: configuration.apple.issuer, audiences: configuration.allClientIDs,
                leewaySeconds: Int64(configuration.apple.leewaySeconds)))
        transitions = AccountTransitionRecorder(
            effects: EffectRecorder(
                webhookApps: Set(configuration.apps.filter { $0.webhook != nil }.map(\.id)),
                erasure: ErasureScheduler(configuration: configuration)))
        ingestor = NotificationIngestor(
            configuration: configuration, verifier: verifier, store: parts.store, log: parts.log,
            metrics: parts.metrics, clock: parts.clock, transitions: transitions, committed: parts.outboxSignal,
            vault: parts.vault)
        signals = SecurityEventIngestor(
            receivers: signalReceivers, store: parts.store, log: parts.log, metrics: parts.metrics, clock: parts.clock,
            transitions: transitions, committed: parts.outboxSignal, vault: parts.vault)
        var endpoints: [String: (endpoint: WebhookEndpoint, signer: WebhookSigner)] = [:]
        for app in configuration.apps {
            if let url = app.webhook?.url, let endpoint = WebhookEndpoint(url: url), let signer = webhookSigners[app.id]
            {
                endpoints[app.id] = (endpoint, signer)
            }
        }
        apple = AppleAccountServices(configuration: configuration, metrics: parts.metrics, clock: parts.clock)
        webhookDelivery = WebhookDelivery(
            endpoints: endpoints, timeout: .milliseconds(configuration.outbox.timeoutMilliseconds),
            clock: parts.clock)
    }
}
