import LifecycleCore
import LifecycleCrypto
import Synchronization

/// Apple's key set, cached, looked up by `kid`, refreshed when a token names a key the cache lacks.
///
/// Why each rule (DOMAIN.md §1): Apple rotates keys, so a cache kept forever breaks; refreshing on every
/// unknown `kid` lets a flood of random `kid`s become a flood of fetches, so refreshes are at most one per
/// ``Configuration/minimumRefreshInterval``; concurrent misses share one fetch; a failed fetch keeps the
/// last good set. A cache that holds no set at all (its first fetch failed: the network not up yet at boot,
/// the source down) refuses every token, so it fetches again sooner: after
/// ``Configuration/unloadedRetryInterval``, doubling with each failure up to the minimum refresh interval
/// (``refreshIfUnloaded()`` lets `serve` do so without waiting for a token). Each key is parsed into an OpenSSL key once and reused until it leaves the set.
public final class JWKSCache: KeyProvider {
    public struct Configuration: Hashable, Sendable {
        /// Minimum time between two fetches caused by unknown `kid`s, in seconds. Default 300.
        public var minimumRefreshInterval: Int64
        /// Seconds after a failed fetch before the next one while no set is loaded; doubles with each failure
        /// in a row, up to ``minimumRefreshInterval``. Default 5.
        public var unloadedRetryInterval: Int64

        public init(minimumRefreshInterval: Int64 = 300, unloadedRetryInterval: Int64 = 5) {
            self.minimumRefreshInterval = minimumRefreshInterval
            self.unloadedRetryInterval = unloadedRetryInterval
        }
    }

    /// Counters for `/metrics` and `/readyz`.
    public struct Statistics: Hashable, Sendable {
        /// Successful fetches that replaced the set.
        public var refreshes: Int
        /// Fetches that failed (network, HTTP status, malformed document, no usable key).
        public var failures: Int
        /// Unknown-`kid` lookups answered from the cache because a fetch was too recent.
        public var rateLimitedMisses: Int
        public var keyCount: Int
        public var lastRefresh: Instant?
        /// The last failure's description (no secrets), nil after a success.
        public var lastFailure: String?
    }

    private struct CachedKey {
        var jwk: JWK
        var key: RSAPublicKey
    }

    private struct State {
        var keys: [String: CachedKey] = [:]
        /// The set's usable P-256 keys (ES256), for ``verificationKey(for:)``.
        var p256Keys: [String: P256PublicKey] = [:]
        /// When the last fetch started, and once it ended, when it ended.
        var lastAttempt: Instant?
        /// Fetches that failed since the last one that loaded a set.
        var failuresInARow = 0
        var inFlight: Task<Void, Never>?
        var lastError: JWKSError?
        var statistics = Statistics(
            refreshes: 0, failures: 0, rateLimitedMisses: 0, keyCount: 0, lastRefresh: nil, lastFailure: nil)
    }

    private let fetcher: any JWKSFetcher
    private let configuration: Configuration
    private let now: @Sendable () -> Instant
    private let state = Mutex(State())

    public init(
        fetcher: any JWKSFetcher, configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> Instant
    ) {
        self.fetcher = fetcher
        self.configuration = configuration
        self.now = now
    }

    /// True once a key set with at least one usable key has been loaded (readiness).
    public var hasKeys: Bool { state.withLock { !$0.keys.isEmpty || !$0.p256Keys.isEmpty } }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The `kid`s currently cached, sorted.
    public var keyIDs: [String] { state.withLock { Set($0.keys.keys).union($0.p256Keys.keys).sorted() } }

    public func key(for keyID: String) async -> KeyLookup {
        switch await lookUp(keyID, { state in state.keys[keyID]?.key }) {
        case .found(let key): .found(key)
        case .notFound: .notFound
        case .unavailable(let reason): .unavailable(reason)
        }
    }

    /// RSA keys first, then P-256 keys, under the same refresh rules as ``key(for:)``.
    public func verificationKey(for keyID: String) async -> VerificationKeyLookup {
        let lookup = await lookUp(keyID) { state -> VerificationKey? in
            if let cached = state.keys[keyID] { return .rsa(cached.key) }
            return state.p256Keys[keyID].map(VerificationKey.p256)
        }
        switch lookup {
        case .found(let key): return .found(key)
        case .notFound: return .notFound
        case .unavailable(let reason): return .unavailable(reason)
        }
    }

    private enum Lookup<Key> {
        case found(Key)
        case notFound
        case unavailable(String)
    }

    private func lookUp<Key>(_ keyID: String, _ find: (State) -> Key?) async -> Lookup<Key> {
        if let cached = state.withLock({ find($0) }) { return .found(cached) }
        let instant = now()
        let task: Task<Void, Never>? = state.withLock { state in
            if let running = state.inFlight { return running }
            // Rate limit whether or not a set is loaded: a source that is down is not hammered either.
            guard mayFetch(state, at: instant) else {
                state.statistics.rateLimitedMisses += 1
                return nil
            }
            return startFetch(&state, at: instant)
        }
        if let task { await task.value }
        return state.withLock { state in
            if let cached = find(state) { return .found(cached) }
            if state.keys.isEmpty && state.p256Keys.isEmpty {
                return .unavailable("no key set loaded: \(state.lastError?.description ?? "not fetched yet")")
            }
            // The kid may be a newly rotated key we could not fetch: our problem, worth a retry by Apple.
            if let error = state.lastError { return .unavailable("key set refresh failed: \(error.description)") }
            return .notFound
        }
    }

    /// Fetches now, regardless of the rate limit (startup, a periodic refresh, SIGHUP). Joins a fetch already
    /// running. Returns the error when this refresh failed; the previous set stays in use.
    @discardableResult
    public func refresh() async -> JWKSError? {
        let instant = now()
        let task = state.withLock { state in state.inFlight ?? startFetch(&state, at: instant) }
        await task.value
        return state.withLock { state in
            state.lastError
        }
    }

    /// What ``refreshIfUnloaded()`` did.
    public enum UnloadedRefresh: Equatable, Sendable {
        /// Nothing: a set is loaded, the retry interval has not passed, or the caller was cancelled while the
        /// fetch ran.
        case notDue
        /// A fetch this call started or joined loaded a set of this many keys.
        case loaded(Int)
        /// That fetch failed; no set is loaded.
        case failed(JWKSError)
    }

    /// Fetches when no set is loaded and the retry interval since the last attempt ended has passed, or joins a
    /// fetch running. Its wait ends when the calling task is cancelled (checked every 50 ms), so a `serve`
    /// shutting down does not wait out a hanging fetch, whose own timeout ends it later.
    public func refreshIfUnloaded() async -> UnloadedRefresh {
        let instant = now()
        let task: Task<Void, Never>? = state.withLock { state in
            guard state.keys.isEmpty && state.p256Keys.isEmpty else { return nil }
            if let running = state.inFlight { return running }
            guard mayFetch(state, at: instant) else { return nil }
            return startFetch(&state, at: instant)
        }
        guard task != nil else { return .notDue }
        while state.withLock({ $0.inFlight != nil }) {
            if Task.isCancelled { return .notDue }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return state.withLock { state in
            if !state.keys.isEmpty || !state.p256Keys.isEmpty {
                return .loaded(state.keys.count + state.p256Keys.count)
            }
            return state.lastError.map(UnloadedRefresh.failed) ?? .notDue
        }
    }

    /// One rule for every fetch not asked for outright: ``minimumRefreshInterval`` after the last attempt, or,
    /// while no set is loaded, ``unloadedRetryInterval`` doubled per failure in a row, capped at the former.
    /// Counted from when the last attempt ended (``State/lastAttempt`` is set again then): a source that hangs
    /// until the fetch times out is not asked again the moment it gave up.
    private func mayFetch(_ state: State, at instant: Instant) -> Bool {
        guard let last = state.lastAttempt else { return true }
        var interval = configuration.minimumRefreshInterval
        if state.keys.isEmpty && state.p256Keys.isEmpty {
            let doublings = Int64(min(max(state.failuresInARow - 1, 0), 20))
            interval = min(interval, max(configuration.unloadedRetryInterval, 1) &<< doublings)
        }
        return instant.millisecondsSinceEpoch &- last.millisecondsSinceEpoch >= interval &* 1000
    }

    private func startFetch(_ state: inout State, at instant: Instant) -> Task<Void, Never> {
        state.lastAttempt = instant
        let task = Task { await self.performFetch() }
        state.inFlight = task
        return task
    }

    private func performFetch() async {
        let outcome: Result<JWKSet, JWKSError>
        do throws(JWKSError) {
            let bytes = try await fetcher.fetch()
            outcome = .success(try JWKSet(decoding: bytes))
        } catch {
            outcome = .failure(error)
        }
        let existing = state.withLock { $0.keys }
        var built: Result<([String: CachedKey], [String: P256PublicKey]), JWKSError>
        switch outcome {
        case .failure(let error):
            built = .failure(error)
        case .success(let set):
            var keys: [String: CachedKey] = [:]
            for jwk in set.keys where jwk.isUsableForRS256 {
                if let previous = existing[jwk.keyID], previous.jwk.n == jwk.n, previous.jwk.e == jwk.e {
                    keys[jwk.keyID] = previous
                } else if let key = try? jwk.publicKey() {
                    keys[jwk.keyID] = CachedKey(jwk: jwk, key: key)
                }
            }
            var p256Keys: [String: P256PublicKey] = [:]
            for jwk in set.ecKeys where jwk.isUsableForES256 {
                if let key = try? jwk.publicKey() { p256Keys[jwk.keyID] = key }
            }
            built =
                keys.isEmpty && p256Keys.isEmpty
                ? .failure(JWKSError(.noUsableKeys, "key set has no usable RSA or P-256 key"))
                : .success((keys, p256Keys))
        }
        let finished = now()
        state.withLock { state in
            state.lastAttempt = finished
            switch built {
            case .success(let (keys, p256Keys)):
                state.keys = keys
                state.p256Keys = p256Keys
                state.statistics.refreshes += 1
                state.statistics.keyCount = keys.count + p256Keys.count
                state.statistics.lastRefresh = finished
                state.statistics.lastFailure = nil
                state.lastError = nil
                state.failuresInARow = 0
            case .failure(let error):
                state.statistics.failures += 1
                state.statistics.lastFailure = error.description
                state.lastError = error
                state.failuresInARow += 1
            }
            state.inFlight = nil
        }
    }
}
