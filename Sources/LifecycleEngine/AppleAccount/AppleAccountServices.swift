import AppleAccountAPI
import AppleNotifications
import LifecycleCore

/// What the service uses to talk to Apple's REST API for the apps of one configuration: per app with
/// `signInWithApple`, its REST client (client secrets minted and cached per client ID) and the code exchange
/// that checks the returned `id_token` against Apple's key set at `restBaseURL` + `/auth/keys` (one cache for
/// every app, as Apple has one key set). Built with the ``ActiveConfiguration``, so a reload that changes the
/// credentials applies to the next call; every call is counted in ``AppleRequestMetrics``.
public struct AppleAccountServices: Sendable {
    public struct App: Sendable {
        public let credentials: AppleCredentials
        public let client: AppleRESTClient
        public let exchange: AppleCodeExchange
        public let verifier: IdentityTokenVerifier
    }

    public let apps: [String: App]

    public init(configuration: ServiceConfiguration, metrics: MetricsRegistry, clock: any LifecycleClock) {
        let counted = AppleRequestMetrics(metrics)
        let now: @Sendable () -> Instant = { clock.now() }
        let rest = AppleRESTConfiguration(
            baseURL: configuration.apple.restBaseURL, timeout: .seconds(configuration.apple.restTimeoutSeconds))
        let keys = JWKSCache(
            fetcher: CountedKeysFetcher(fetcher: AppleKeysFetcher(configuration: rest), metrics: counted),
            configuration: JWKSCache.Configuration(
                minimumRefreshInterval: Int64(configuration.apple.jwksMinRefreshSeconds)),
            now: now)
        let verifier = IdentityTokenVerifier(
            keys: keys,
            configuration: IdentityTokenVerifier.Configuration(
                issuer: configuration.apple.issuer, leewaySeconds: Int64(configuration.apple.leewaySeconds)))
        var apps: [String: App] = [:]
        for app in configuration.apps {
            guard let account = app.signInWithApple,
                // The default client secret policy is valid, so this cannot fail.
                let client = try? AppleRESTClient.forService(
                    credentials: account.credentials, apple: configuration.apple, now: now,
                    observer: { counted.record($0) })
            else { continue }
            apps[app.id] = App(
                credentials: account.credentials, client: client,
                exchange: AppleCodeExchange(client: client, verifier: verifier, now: now), verifier: verifier)
        }
        self.apps = apps
    }
}
