import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches a JWKS over HTTPS with URLSession. Used only on a cache miss or refresh, never per request, so
/// FoundationNetworking stays off the hot path (STYLE.md).
public struct HTTPSJWKSFetcher: JWKSFetcher {
    public let url: String
    public let limits: JWKSFetchLimits

    public init(url: String = AppleIdentity.keysURL, limits: JWKSFetchLimits = JWKSFetchLimits()) {
        self.url = url
        self.limits = limits
    }

    public func fetch() async throws(JWKSError) -> [UInt8] {
        guard let endpoint = URL(string: url), endpoint.scheme == "https" else {
            throw JWKSError(.fetchFailed, "key set URL must be https: \(url)")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = limits.timeoutSeconds
        configuration.timeoutIntervalForResource = limits.timeoutSeconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: endpoint)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw JWKSError(.fetchFailed, "GET \(url) failed: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            throw JWKSError(.fetchFailed, "GET \(url) answered \(status)")
        }
        guard data.count <= limits.maximumBytes else {
            throw JWKSError(.fetchFailed, "key set is larger than \(limits.maximumBytes) bytes")
        }
        return Array(data)
    }
}
