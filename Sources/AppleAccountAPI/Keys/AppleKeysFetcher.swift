import AppleNotifications

/// Fetches Apple's JWKS (`GET /auth/keys`, the keys that sign `id_token`s and notifications) over the service's
/// own HTTP client, from the same base URL and with the same trusted roots as the REST calls, for a
/// `JWKSCache`.
public struct AppleKeysFetcher: JWKSFetcher {
    public let configuration: AppleRESTConfiguration
    public let limits: JWKSFetchLimits

    public init(configuration: AppleRESTConfiguration, limits: JWKSFetchLimits = JWKSFetchLimits()) {
        var bounded = configuration
        let seconds = limits.timeoutSeconds.isFinite ? min(max(limits.timeoutSeconds, 0.001), 3_600) : 10
        bounded.timeout = .milliseconds(Int64(seconds * 1000))
        bounded.maximumResponseBytes = limits.maximumBytes
        self.configuration = bounded
        self.limits = limits
    }

    public func fetch() async throws(JWKSError) -> [UInt8] {
        let url = configuration.baseURL.description + AppleEndpoint.keys.path
        switch await AppleHTTPTransport(configuration: configuration).get(.keys) {
        case .success(let response):
            guard response.status == 200 else {
                throw JWKSError(.fetchFailed, "GET \(url) answered \(response.status)")
            }
            return response.body
        case .failure(let error):
            throw JWKSError(.fetchFailed, "GET \(url) failed: \(error.description)")
        }
    }
}
