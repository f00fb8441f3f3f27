import HTTPServer
import LifecycleEngine

/// `lifecycle_http_responses_total{listener,code}`: every final response a listener gives, counted where the
/// server queues it (``HTTPServerConfiguration/responseObserver``), so the answers no route sees — 413 for a
/// body over `public.maxBodyBytes`, 400 for a framing error, 408, 414, 431, 501, the 503 over
/// `public.maxConnections` — are counted with the 405s and 404s the routes give. The labels are closed sets:
/// the listener's name and a status code the server itself chose.
enum ResponseCounter {
    static func observer(listener: String, metrics: MetricsRegistry) -> @Sendable (Int) -> Void {
        let counter = metrics.counter(
            "lifecycle_http_responses_total", help: "Final HTTP responses by listener and status code.")
        return { code in counter.increment([("listener", listener), ("code", String(code))]) }
    }
}
