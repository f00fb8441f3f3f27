import AppleNotifications
import Synchronization

/// A JWKS source tests control: what it returns, whether it fails, and how many times it was asked.
public final class FakeJWKSFetcher: JWKSFetcher {
    private struct State {
        var response: Result<[UInt8], JWKSError>
        var fetchCount = 0
    }

    private let state: Mutex<State>
    /// Delay before answering, so concurrent misses overlap one fetch.
    private let delay: Duration

    public init(jwks: JWKSet, delay: Duration = .zero) {
        state = Mutex(State(response: .success(jwks.encoded())))
        self.delay = delay
    }

    public init(response: Result<[UInt8], JWKSError>, delay: Duration = .zero) {
        state = Mutex(State(response: response))
        self.delay = delay
    }

    public var fetchCount: Int { state.withLock { $0.fetchCount } }

    public func serve(_ jwks: JWKSet) { state.withLock { $0.response = .success(jwks.encoded()) } }

    public func serve(bytes: [UInt8]) { state.withLock { $0.response = .success(bytes) } }

    public func fail(_ description: String = "connection refused") {
        state.withLock { $0.response = .failure(JWKSError(.fetchFailed, description)) }
    }

    public func fetch() async throws(JWKSError) -> [UInt8] {
        let response = state.withLock { state in
            state.fetchCount += 1
            return state.response
        }
        if delay > .zero { try? await Task.sleep(for: delay) }
        return try response.get()
    }
}
