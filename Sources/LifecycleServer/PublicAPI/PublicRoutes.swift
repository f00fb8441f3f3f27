import AppleNotifications
import Foundation
import HTTP1
import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// The listener registered with Apple: the notification endpoint plus health and readiness, and the metrics
/// only when `public.metrics` says so (they are the admin listener's otherwise).
struct PublicRoutes: Sendable {
    let notificationPath: String
    /// `public.metrics`: whether `GET /metrics` answers here (404 otherwise, like any unknown path).
    let servesMetrics: Bool
    let ingestor: @Sendable () -> NotificationIngestor
    /// The Shared Signals push endpoints of the configuration in force (their paths change on reload).
    let signals: @Sendable () -> SecurityEventIngestor
    let store: any Store
    let keys: JWKSCache
    let metrics: MetricsRegistry
    let requestDuration: Histogram
    /// The service's clock: request durations are monotonic time on it.
    let clock: any LifecycleClock
    let readinessDetails: @Sendable () -> JSONObject

    init(
        notificationPath: String, servesMetrics: Bool = false, ingestor: @escaping @Sendable () -> NotificationIngestor,
        signals: @escaping @Sendable () -> SecurityEventIngestor, store: any Store,
        keys: JWKSCache, metrics: MetricsRegistry, clock: any LifecycleClock,
        readinessDetails: @escaping @Sendable () -> JSONObject = { [:] }
    ) {
        self.notificationPath = notificationPath
        self.servesMetrics = servesMetrics
        self.ingestor = ingestor
        self.signals = signals
        self.store = store
        self.keys = keys
        self.metrics = metrics
        self.clock = clock
        self.readinessDetails = readinessDetails
        requestDuration = metrics.histogram(
            "lifecycle_http_request_duration_seconds", help: "Time from a complete request to its response, by route.",
            buckets: MetricsRegistry.latencyBuckets)
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let started = clock.monotonicNanoseconds()
        let (route, response) = await route(request)
        let seconds = Double(clock.monotonicNanoseconds() - started) / 1e9
        requestDuration.observe([("route", route)], value: seconds)
        return response
    }

    private func route(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        switch request.path {
        case notificationPath:
            if let refusal = HTTPResponse.rejectingMethod(request.method, allowed: ["POST"]) {
                return ("notifications", refusal)
            }
            let outcome = await ingestor().ingest(httpBody: request.body)
            return ("notifications", NotificationResponses.response(for: outcome))
        case "/healthz":
            if let refusal = HTTPResponse.rejectingMethod(request.method, allowed: ["GET", "HEAD"]) {
                return ("healthz", refusal)
            }
            return ("healthz", .jsonDocument(["status": "ok"]))
        case "/readyz":
            if let refusal = HTTPResponse.rejectingMethod(request.method, allowed: ["GET", "HEAD"]) {
                return ("readyz", refusal)
            }
            return ("readyz", await readiness())
        case "/metrics" where servesMetrics:
            if let refusal = HTTPResponse.rejectingMethod(request.method, allowed: ["GET", "HEAD"]) {
                return ("metrics", refusal)
            }
            return ("metrics", MetricsExposition.response(metrics))
        default:
            let signals = signals()
            if let receiver = signals.receiver(atPath: request.path) {
                if let refusal = HTTPResponse.rejectingMethod(request.method, allowed: ["POST"]) {
                    return ("signals", refusal)
                }
                let outcome = await signals.ingest(
                    receiver, contentType: request.headers["Content-Type"],
                    authorization: request.headers["Authorization"], body: request.body)
                return ("signals", SecurityEventResponses.response(for: outcome))
            }
            return ("other", .jsonDocument(["error": "not found"], status: .notFound))
        }
    }

    /// Ready when the store answers a query and a key set is loaded: without keys every notification would
    /// be refused, so a load balancer should not send traffic here yet.
    private func readiness() async -> HTTPResponse {
        var details = readinessDetails()
        var ready = true
        do {
            _ = try await store.read { reader in try reader.notificationCount() }
            details["store"] = "ok"
        } catch {
            details["store"] = .string("unavailable")
            ready = false
        }
        if keys.hasKeys {
            details["keys"] = .integer(Int64(keys.statistics.keyCount))
        } else {
            details["keys"] = "none loaded"
            ready = false
        }
        // Each provider's key set, for the operator; readiness stays Apple's: one transmitter that is down must
        // not take the whole listener out of a load balancer.
        var signalKeys: JSONObject = [:]
        for receiver in signals().allReceivers {
            let name = "\(receiver.app)/\(receiver.provider.id)"
            signalKeys[name] =
                receiver.keys.hasKeys ? .integer(Int64(receiver.keys.statistics.keyCount)) : "none loaded"
        }
        if !signalKeys.isEmpty { details["signalKeys"] = .object(signalKeys) }
        details["status"] = ready ? "ready" : "not ready"
        return .jsonDocument(.object(details), status: ready ? .ok : .serviceUnavailable)
    }
}
