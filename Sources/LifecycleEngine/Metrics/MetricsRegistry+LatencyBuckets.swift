extension MetricsRegistry {
    /// Histogram bounds, in seconds, of every latency the service measures (a request's response, a webhook
    /// delivery): one set, so the families can be compared on one dashboard.
    package static let latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
}
