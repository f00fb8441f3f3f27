import AppleAccountAPI
import AppleNotifications
import LifecycleCore
import Testing

/// `apple.jwks` set to an `https://` URL is fetched over the service's own TLS client, like every other
/// outbound call: against the stand-in for Apple on loopback, whose certificate only the test CA vouches for.
@Suite("Key set fetched over the service's own TLS client")
struct KeySetFetcherTests {
    @Test("an https key set URL is fetched with the peer verified, and its keys verify")
    func fetchesOverTLS() async throws {
        let harness = try AppleHarness()
        let url = harness.fake.baseURL + "/auth/keys"
        let source = try #require(JWKSSource(url))
        let fetcher = try source.makeFetcher(trustedCAFile: harness.fake.caFile).get()
        let cache = JWKSCache(fetcher: fetcher, now: harness.clock.now)
        #expect(await cache.refresh() == nil)
        let body = try await fetcher.fetch()
        #expect(try JWKSet(decoding: body) == harness.fake.jwks)
    }

    @Test("without the CA that signed the peer's certificate the fetch fails: the system store does not trust it")
    func refusesUntrustedPeer() async throws {
        let harness = try AppleHarness()
        let fetcher = try AppleKeysFetcher.keySet(url: harness.fake.baseURL + "/auth/keys").get()
        await #expect(throws: JWKSError.self) { try await fetcher.fetch() }
    }

    @Test(
        "a URL that is not a plain https origin and path is refused before any request, naming the URL",
        arguments: ["http://127.0.0.1:9/auth/keys", "https://h/keys?x=1", "https://u@h/keys", "https://h:0/keys"])
    func refusesBadURLs(_ url: String) {
        switch AppleKeysFetcher.keySet(url: url) {
        case .success: Issue.record("\(url) was accepted")
        case .failure(let error):
            #expect(error.field == "jwks")
            #expect(error.description.hasPrefix("key set URL "), "\(error)")
        }
    }

    @Test("an unreachable endpoint fails within the timeout instead of hanging")
    func unreachableFailsFast() async throws {
        let fetcher = try AppleKeysFetcher.keySet(
            url: "https://127.0.0.1:9/auth/keys", limits: JWKSFetchLimits(timeoutSeconds: 2)
        ).get()
        let clock = ContinuousClock()
        let started = clock.now
        do {
            _ = try await fetcher.fetch()
            Issue.record("nothing listens on port 9")
        } catch {
            #expect(error.code == .fetchFailed)
        }
        #expect(clock.now - started < .seconds(5))
    }
}
