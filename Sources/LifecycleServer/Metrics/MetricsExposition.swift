import HTTP1
import LifecycleEngine

/// `GET /metrics`: the registry in the Prometheus text exposition format, version 0.0.4 (Prometheus,
/// "Exposition formats"). Served by the admin listener behind its bearer token, which Prometheus sends with
/// its `authorization` scrape setting, and by the public listener only when `public.metrics` is true.
enum MetricsExposition {
    /// The media type the text format is announced with.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func response(_ metrics: MetricsRegistry) -> HTTPResponse {
        var response = HTTPResponse.text(metrics.render())
        try? response.headers.replace(name: "Content-Type", value: contentType)
        return response
    }
}
