import AppleAccountAPI
import AppleNotifications
import LifecycleCore

/// A transmitter's key set found through its discovery document (SSF 1.0 §7.1 `jwks_uri`), for a provider
/// configured without `jwks`. Each fetch reads the document again (its `issuer` checked against the
/// provider's, SSF 1.0 §7.2.1) and then the key set it names, so a transmitter that moves its keys is
/// followed; ``JWKSCache`` rate-limits fetches, so this is one pair of requests per refresh.
struct DiscoveredJWKSFetcher: JWKSFetcher {
    let discovery: String
    let issuer: String
    let limits: JWKSFetchLimits

    func fetch() async throws(JWKSError) -> [UInt8] {
        let client = TransmitterClient(timeout: .milliseconds(Int64(limits.timeoutSeconds * 1000)))
        let metadata: TransmitterMetadata
        do throws(StreamManagementError) {
            let answer = try await client.send("GET", discovery, authorization: nil)
            try TransmitterClient.expect(answer, [200], call: "GET \(discovery)")
            metadata = try TransmitterMetadata.decode(answer.json, url: discovery, expectedIssuer: issuer)
        } catch {
            throw JWKSError(.fetchFailed, "discovery: \(error.description)")
        }
        guard let uri = metadata.jwksURI, let source = JWKSSource(uri), case .https = source else {
            throw JWKSError(.fetchFailed, "discovery: \(discovery) names no https:// jwks_uri")
        }
        switch source.makeFetcher(limits: limits) {
        case .success(let fetcher): return try await fetcher.fetch()
        // The refusal quotes the URI, bounded; it is the transmitter's and not repeated whole.
        case .failure(let error): throw JWKSError(.fetchFailed, "discovery: jwks_uri: \(error.description)")
        }
    }
}
