import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools
import TestSupport
import Testing

private func isFound(_ lookup: KeyLookup) -> Bool {
    if case .found = lookup { return true }
    return false
}

@Suite("JWKS cache")
struct JWKSCacheTests {
    let old = TestTokenFactory(key: TestKeys.rsa2048, keyID: "2025-key-a")

    @Test("the first lookup loads the set; later lookups of known kids do not fetch")
    func loadsOnceAndCaches() async {
        let fetcher = FakeJWKSFetcher(jwks: old.jwks)
        let cache = JWKSCache(fetcher: fetcher, now: ManualClock().now)
        #expect(!cache.hasKeys)
        #expect(isFound(await cache.key(for: "2025-key-a")))
        #expect(isFound(await cache.key(for: "2025-key-a")))
        #expect(fetcher.fetchCount == 1)
        #expect(cache.hasKeys)
        #expect(cache.statistics.refreshes == 1)
        #expect(cache.keyIDs == ["2025-key-a"])
    }

    @Test("after a rotation, a token under the new kid verifies after exactly one refresh")
    func rotationWhileWarm() async throws {
        let clock = ManualClock()
        let fetcher = FakeJWKSFetcher(jwks: old.jwks)
        let cache = JWKSCache(fetcher: fetcher, now: clock.now)
        let verifier = NotificationVerifier(keys: cache, configuration: .init(audiences: [TestFixtures.audience]))
        _ = try await verifier.verify(jws: old.token(), at: TestFixtures.issuedAt).get()

        let new = TestTokenFactory(key: TestKeys.fresh(), keyID: "2026-key-b")
        fetcher.serve(new.jwks)  // Apple drops the old kid and publishes a new one.
        clock.advance(seconds: 301)
        let notification = try await verifier.verify(jws: new.token(), at: TestFixtures.issuedAt).get()
        #expect(notification.keyID == "2026-key-b")
        #expect(fetcher.fetchCount == 2)
        #expect(cache.keyIDs == ["2026-key-b"])

        guard case .failure(let error) = await verifier.verify(jws: old.token(), at: TestFixtures.issuedAt) else {
            Issue.record("the rotated-out key must no longer verify")
            return
        }
        #expect(error.code == .unknownKid)
    }

    @Test("a new kid seen within the refresh interval waits for the interval, then is fetched")
    func rotationWithinInterval() async {
        let clock = ManualClock()
        let fetcher = FakeJWKSFetcher(jwks: old.jwks)
        let cache = JWKSCache(fetcher: fetcher, now: clock.now)
        _ = await cache.key(for: "2025-key-a")
        let new = TestTokenFactory(key: TestKeys.fresh(), keyID: "2026-key-b")
        fetcher.serve(new.jwks)
        clock.advance(seconds: 10)
        #expect(!isFound(await cache.key(for: "2026-key-b")))
        #expect(fetcher.fetchCount == 1)
        clock.advance(seconds: 300)
        #expect(isFound(await cache.key(for: "2026-key-b")))
        #expect(fetcher.fetchCount == 2)
    }

    @Test("a failed fetch keeps the last good set and counts the failure")
    func fetchFailureKeepsLastGoodSet() async {
        let clock = ManualClock()
        let fetcher = FakeJWKSFetcher(jwks: old.jwks)
        let cache = JWKSCache(fetcher: fetcher, now: clock.now)
        #expect(isFound(await cache.key(for: "2025-key-a")))
        fetcher.fail()
        clock.advance(seconds: 301)
        guard case .unavailable = await cache.key(for: "rotated-in-during-outage") else {
            Issue.record("an unknown kid during a failed refresh must be reported as unavailable (retryable)")
            return
        }
        #expect(isFound(await cache.key(for: "2025-key-a")))
        #expect(cache.statistics.failures == 1)
        #expect(cache.hasKeys)

        fetcher.serve(bytes: Array("<html>maintenance</html>".utf8))
        #expect(await cache.refresh()?.code == .malformedJWKS)
        #expect(isFound(await cache.key(for: "2025-key-a")))
        #expect(cache.statistics.failures == 2)
        #expect(cache.statistics.lastFailure != nil)
    }

    @Test("with no set ever loaded, lookups are unavailable and the verifier marks them retryable")
    func unavailableIsRetryable() async {
        let fetcher = FakeJWKSFetcher(response: .failure(JWKSError(.fetchFailed, "timed out")))
        let cache = JWKSCache(fetcher: fetcher, now: ManualClock().now)
        let verifier = NotificationVerifier(keys: cache, configuration: .init(audiences: [TestFixtures.audience]))
        guard case .failure(let error) = await verifier.verify(jws: old.token(), at: TestFixtures.issuedAt) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .unknownKid)
        #expect(error.isRetryable)
        #expect(!cache.hasKeys)
    }

    /// A cache with no set refuses every token, so while nothing is loaded it fetches again after 5 s, then
    /// 10, 20… (never more often, never later than the refresh interval); once a set is in, the refresh
    /// interval rules again.
    @Test("with no set loaded, a failed fetch is retried after 5 s doubling per failure, by a token or by serve")
    func unloadedRetriesBackOff() async {
        let clock = ManualClock()
        let fetcher = FakeJWKSFetcher(response: .failure(JWKSError(.fetchFailed, "network unreachable")))
        let cache = JWKSCache(fetcher: fetcher, now: clock.now)
        #expect(await cache.refresh() != nil)
        #expect(fetcher.fetchCount == 1)
        // Tokens inside the interval are refused without a fetch; so is serve's retry.
        clock.advance(seconds: 4)
        _ = await cache.key(for: "2025-key-a")
        #expect(await cache.refreshIfUnloaded() == .notDue)
        #expect(fetcher.fetchCount == 1)
        clock.advance(seconds: 1)
        #expect(await cache.refreshIfUnloaded() == .failed(JWKSError(.fetchFailed, "network unreachable")))
        #expect(fetcher.fetchCount == 2)
        // Two failures in a row: 10 s now.
        clock.advance(seconds: 9)
        _ = await cache.key(for: "2025-key-a")
        #expect(fetcher.fetchCount == 2)
        clock.advance(seconds: 1)
        fetcher.serve(old.jwks)
        #expect(isFound(await cache.key(for: "2025-key-a")))
        #expect(fetcher.fetchCount == 3)
        // Loaded: serve's retry does nothing, and an unknown kid waits for the refresh interval.
        clock.advance(seconds: 60)
        #expect(await cache.refreshIfUnloaded() == .notDue)
        _ = await cache.key(for: "unknown")
        #expect(fetcher.fetchCount == 3)
    }

    @Test("with no set loaded, retries double up to the refresh interval and no further")
    func unloadedBackOffIsCapped() async {
        let clock = ManualClock()
        let fetcher = FakeJWKSFetcher(response: .failure(JWKSError(.fetchFailed, "network unreachable")))
        let cache = JWKSCache(
            fetcher: fetcher, configuration: .init(minimumRefreshInterval: 30, unloadedRetryInterval: 5), now: clock.now
        )
        var waits: [Int64] = []
        _ = await cache.refresh()
        var waited: Int64 = 0
        while waits.count < 6 {
            clock.advance(seconds: 1)
            waited += 1
            let before = fetcher.fetchCount
            _ = await cache.refreshIfUnloaded()
            if fetcher.fetchCount > before {
                waits.append(waited)
                waited = 0
            }
        }
        #expect(waits == [5, 10, 20, 30, 30, 30])
    }

    /// A source that hangs until the fetch times out: the next try comes 5 s after it gave up, not at once.
    struct HangingFetcher: JWKSFetcher {
        let clock: TestSupport.ManualClock
        let seconds: Int64
        func fetch() async throws(JWKSError) -> [UInt8] {
            clock.advance(seconds: seconds)
            throw JWKSError(.fetchFailed, "timed out")
        }
    }

    @Test("the retry interval of an empty cache counts from when the failed fetch ended")
    func unloadedRetryCountsFromTheFailure() async {
        let clock = ManualClock()
        let fetcher = HangingFetcher(clock: clock, seconds: 10)
        let cache = JWKSCache(fetcher: fetcher, now: clock.now)
        #expect(await cache.refresh() != nil)
        clock.advance(seconds: 4)
        #expect(await cache.refreshIfUnloaded() == .notDue)
        clock.advance(seconds: 1)
        #expect(await cache.refreshIfUnloaded() == .failed(JWKSError(.fetchFailed, "timed out")))
    }

    /// A fetch that never ends before its timeout must not hold up a caller that was cancelled (`serve`
    /// stopping): the wait ends, the fetch runs on.
    @Test("a cancelled caller stops waiting for a hanging fetch")
    func cancelledWaitEnds() async throws {
        struct Stalled: JWKSFetcher {
            func fetch() async throws(JWKSError) -> [UInt8] {
                try? await Task.sleep(for: .seconds(30))
                throw JWKSError(.fetchFailed, "timed out")
            }
        }
        let cache = JWKSCache(fetcher: Stalled(), now: ManualClock().now)
        let waiting = Task { await cache.refreshIfUnloaded() }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        waiting.cancel()
        #expect(await waiting.value == .notDue)
        // Far below the fetch's 30 s, with room for a loaded machine (2 s flaked beside the whole suite).
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("a flood of random kids causes at most one fetch per interval")
    func floodIsRateLimited() async {
        let clock = ManualClock()
        let fetcher = FakeJWKSFetcher(jwks: old.jwks)
        let cache = JWKSCache(fetcher: fetcher, now: clock.now)
        _ = await cache.key(for: "2025-key-a")
        for index in 0..<500 {
            #expect(!isFound(await cache.key(for: "random-\(index)")))
        }
        #expect(fetcher.fetchCount == 1)
        clock.advance(seconds: 300)
        for index in 0..<500 { _ = await cache.key(for: "again-\(index)") }
        #expect(fetcher.fetchCount == 2)
        #expect(cache.statistics.rateLimitedMisses == 999)
    }

    @Test("concurrent misses share one fetch")
    func concurrentMissesShareOneFetch() async {
        let fetcher = FakeJWKSFetcher(jwks: old.jwks, delay: .milliseconds(100))
        let cache = JWKSCache(fetcher: fetcher, now: ManualClock().now)
        let found = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { isFound(await cache.key(for: "2025-key-a")) } }
            var count = 0
            for await hit in group where hit { count += 1 }
            return count
        }
        #expect(found == 50)
        #expect(fetcher.fetchCount == 1)
    }

    @Test("keys of other types, keys without kid and keys for another algorithm are skipped or never used")
    func skipsUnusableKeys() async throws {
        let (n, e) = try TestKeys.rsa2048.publicKey.jwkComponents()
        let document = """
            {"keys": [
              {"kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"},
              {"kty": "RSA", "n": "\(n)", "e": "\(e)"},
              {"kty": "RSA", "kid": "enc", "use": "enc", "n": "\(n)", "e": "\(e)"},
              {"kty": "RSA", "kid": "ps", "alg": "PS256", "n": "\(n)", "e": "\(e)"},
              {"kty": "RSA", "kid": "bad-n", "n": "!!", "e": "\(e)"},
              {"kty": "RSA", "kid": "good", "alg": "RS256", "use": "sig", "n": "\(n)", "e": "\(e)"}
            ]}
            """
        let set = try JWKSet(decoding: Array(document.utf8))
        #expect(set.skippedCount == 1, "the RSA key without kid")
        #expect(set.ecKeys.map(\.keyID) == ["ec"], "a P-256 key is read, and then refused for its bad point")
        let fetcher = FakeJWKSFetcher(response: .success(Array(document.utf8)))
        let cache = JWKSCache(fetcher: fetcher, now: ManualClock().now)
        #expect(isFound(await cache.key(for: "good")))
        #expect(cache.keyIDs == ["good"])
    }

    @Test("a document without usable keys is a failed refresh, not an empty cache")
    func emptySetIsFailure() async {
        let fetcher = FakeJWKSFetcher(response: .success(Array("{\"keys\": []}".utf8)))
        let cache = JWKSCache(fetcher: fetcher, now: ManualClock().now)
        #expect(await cache.refresh()?.code == .noUsableKeys)
        #expect(!cache.hasKeys)
        #expect(throws: JWKSError.self) { try JWKSet(decoding: Array("{\"nokeys\": 1}".utf8)) }
    }

    @Test("a JWKS file is a source, by path or file: URL")
    func fileSource() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("jwks.json")
        let pair = DevKeyPair(keyID: "file-key", privateKey: TestKeys.rsa2048)
        try pair.write(to: directory.path)
        let jwksPath = directory.file(DevKeyPair.jwksFileName)
        for text in [jwksPath, "file://" + jwksPath, "file:" + jwksPath] {
            let source = try #require(JWKSSource(text))
            #expect(source == .file(path: jwksPath))
            let cache = JWKSCache(fetcher: FileJWKSFetcher(path: jwksPath), now: ManualClock().now)
            #expect(isFound(await cache.key(for: "file-key")))
        }
        let missing = JWKSCache(fetcher: FileJWKSFetcher(path: path), now: ManualClock().now)
        #expect(await missing.refresh() != nil)
    }

    @Test("sources: https accepted, plain http refused, Apple's URL is the default")
    func sources() {
        #expect(JWKSSource("https://appleid.apple.com/auth/keys") == .apple)
        #expect(JWKSSource("http://appleid.apple.com/auth/keys") == nil)
        #expect(JWKSSource("") == nil)
    }
}
