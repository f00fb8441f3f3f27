import AppleAccountAPI
import AppleNotifications

/// Apple's `/auth/keys` fetched through ``AppleKeysFetcher``, each fetch counted in
/// `lifecycle_apple_requests_total{endpoint="keys"}` like the other calls to Apple.
struct CountedKeysFetcher: JWKSFetcher {
    let fetcher: AppleKeysFetcher
    let metrics: AppleRequestMetrics

    func fetch() async throws(JWKSError) -> [UInt8] {
        do throws(JWKSError) {
            let bytes = try await fetcher.fetch()
            metrics.record(endpoint: .keys, outcome: "ok")
            return bytes
        } catch {
            metrics.record(endpoint: .keys, outcome: "fetch_failed")
            throw error
        }
    }
}
