import AppleNotifications
import LifecycleCore

/// Fetches a JWKS over the service's own HTTP client (TLS 1.2+, peer verified against the system store or a
/// trusted CA file): Apple's `GET /auth/keys` next to the REST calls, or any `https://` key set URL
/// (`apple.jwks`). One client for every outbound call, so timeouts, size limits and TLS rules are the same
/// everywhere.
public struct AppleKeysFetcher: JWKSFetcher {
    public let configuration: AppleRESTConfiguration
    public let limits: JWKSFetchLimits
    /// Under ``AppleRESTConfiguration/baseURL``: `/auth/keys`, or `""` when the base URL is the key set URL.
    let path: String

    /// Apple's keys at `configuration.baseURL` + `/auth/keys`.
    public init(configuration: AppleRESTConfiguration, limits: JWKSFetchLimits = JWKSFetchLimits()) {
        self.init(configuration: configuration, path: AppleEndpoint.keys.path, limits: limits)
    }

    /// The key set at `url` (`https://host[:port]/path`, no query); the error names what is wrong with it.
    public static func keySet(
        url: String, limits: JWKSFetchLimits = JWKSFetchLimits(), trustedCAFile: String? = nil
    ) -> Result<AppleKeysFetcher, AppleCredentialsError> {
        AppleBaseURL.parse(url, field: "jwks", what: "key set URL").map { base in
            var configuration = AppleRESTConfiguration(baseURL: base)
            configuration.trustedCAFile = trustedCAFile
            return AppleKeysFetcher(configuration: configuration, path: "", limits: limits)
        }
    }

    private init(configuration: AppleRESTConfiguration, path: String, limits: JWKSFetchLimits) {
        var bounded = configuration
        let seconds = limits.timeoutSeconds.isFinite ? min(max(limits.timeoutSeconds, 0.001), 3_600) : 10
        bounded.timeout = .milliseconds(Int64(seconds * 1000))
        bounded.maximumResponseBytes = limits.maximumBytes
        self.configuration = bounded
        self.limits = limits
        self.path = path
    }

    public func fetch() async throws(JWKSError) -> [UInt8] {
        // A discovered `jwks_uri` is the transmitter's text: quoted bounded.
        let url = (configuration.baseURL.description + path).quotedForError(maxBytes: 300)
        switch await AppleHTTPTransport(configuration: configuration).get(path: path) {
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
