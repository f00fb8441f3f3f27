import AppleAccountAPI

/// `lifecycle_apple_requests_total{endpoint,outcome}`: every call the service makes to Apple's REST API —
/// `token` (code exchange, refresh), `revoke`, `keys` (the key set of `id_token`s) — by outcome: `ok`, or the
/// closed ``AppleAPIError/code`` (`invalid_grant`, `invalid_client`, `timeout` …; `fetch_failed` for a key set
/// that could not be fetched). Neither label comes from request data.
public struct AppleRequestMetrics: Sendable {
    public static let name = "lifecycle_apple_requests_total"

    let requests: Counter

    public init(_ metrics: MetricsRegistry) {
        requests = metrics.counter(
            Self.name, help: "Calls to Apple's REST API by endpoint and outcome (ok or Apple's error code).")
    }

    /// One finished call, as ``AppleRESTClient`` reports it.
    public func record(_ call: AppleRequestRecord) {
        record(endpoint: call.endpoint, outcome: call.outcome)
    }

    public func record(endpoint: AppleEndpoint, outcome: String) {
        requests.increment([("endpoint", endpoint.rawValue), ("outcome", outcome)])
    }
}
