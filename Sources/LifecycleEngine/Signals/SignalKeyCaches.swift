import AppleAccountAPI
import AppleNotifications
import LifecycleCore
import Synchronization

/// One ``JWKSCache`` per transmitter key set, kept across reloads: a SIGHUP that leaves a provider's `jwks`
/// as it was keeps its loaded keys and its refresh rate limit, as Apple's cache is kept. Keyed by the source
/// and its refresh settings, so a changed setting builds a new cache.
public final class SignalKeyCaches: Sendable {
    private let clock: any LifecycleClock
    private let caches = Mutex<[String: JWKSCache]>([:])

    public init(clock: any LifecycleClock) {
        self.clock = clock
    }

    /// The cache of `provider`'s key set; the error names the field when its `jwks` cannot be fetched from.
    func cache(for provider: SignalProviderConfiguration, field: String) throws(ConfigurationError) -> JWKSCache {
        let source =
            provider.keysFromDiscovery ? "discovery:\(provider.stream.discovery)|\(provider.issuer)" : provider.jwks
        let identity = "\(source)|\(provider.jwksMinRefreshSeconds)|\(provider.jwksFetchTimeoutSeconds)"
        if let cached = caches.withLock({ $0[identity] }) { return cached }
        let limits = JWKSFetchLimits(timeoutSeconds: Double(provider.jwksFetchTimeoutSeconds))
        let fetcher: any JWKSFetcher
        if provider.keysFromDiscovery {
            fetcher = DiscoveredJWKSFetcher(
                discovery: provider.stream.discovery, issuer: provider.issuer, limits: limits)
        } else {
            guard let source = JWKSSource(provider.jwks) else {
                throw ConfigurationError(
                    file: "configuration", field: field, problem: "unusable key source \(provider.jwks)",
                    fix: "use an https:// URL or a path to a JWKS file")
            }
            switch source.makeFetcher(limits: limits) {
            case .success(let made): fetcher = made
            case .failure(let error):
                throw ConfigurationError(
                    file: "configuration", field: field, problem: error.description,
                    fix: "use https://host[:port]/path without query, fragment or user info")
            }
        }
        let clock = self.clock
        let made = JWKSCache(
            fetcher: fetcher,
            configuration: JWKSCache.Configuration(minimumRefreshInterval: Int64(provider.jwksMinRefreshSeconds)),
            now: { clock.now() })
        return caches.withLock { caches in
            if let raced = caches[identity] { return raced }
            caches[identity] = made
            return made
        }
    }
}
