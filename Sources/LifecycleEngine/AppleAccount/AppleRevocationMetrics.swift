import LifecycleStore

/// The revocation worker's metrics: attempts by outcome (`verified`, `unverified`, `failed`, `no-token`,
/// `retry`), the time from the deletion to a final outcome, and the queue by status. Labels are closed sets.
struct AppleRevocationMetrics: Sendable {
    /// Buckets from one second to a week: a revocation is normally final within seconds, and the tail (Apple
    /// down, credentials refused) is what an operator watches.
    static let completionBuckets: [Double] = [1, 5, 30, 60, 300, 3600, 21_600, 86_400, 604_800]

    let attempts: Counter
    let completionSeconds: Histogram
    let revocations: Gauge

    init(_ metrics: MetricsRegistry) {
        attempts = metrics.counter(
            "lifecycle_apple_revocation_attempts_total",
            help: "Attempts to revoke an account's Apple tokens and prove it, by outcome.")
        completionSeconds = metrics.histogram(
            "lifecycle_apple_revocation_seconds",
            help: "Seconds from the deletion to the revocation's final outcome, by outcome.",
            buckets: Self.completionBuckets)
        revocations = metrics.gauge("lifecycle_apple_revocations", help: "Apple token revocations by status.")
    }
}
