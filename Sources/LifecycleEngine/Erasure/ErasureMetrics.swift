/// The erasure metrics: jobs by status, steps by target and outcome, time from event to completion, jobs past
/// deadline. Target names come from the configuration, so label cardinality stays bounded.
struct ErasureMetrics: Sendable {
    /// Buckets from one minute to 90 days: deadlines are days to months, and the tail is what matters.
    static let completionBuckets: [Double] = [60, 600, 3600, 21_600, 86_400, 259_200, 604_800, 2_592_000, 7_776_000]

    let jobs: Gauge
    let steps: Gauge
    let stepAttempts: Counter
    let completionSeconds: Histogram
    let overdue: Gauge

    init(_ metrics: MetricsRegistry) {
        jobs = metrics.gauge("lifecycle_erasure_jobs", help: "Erasure jobs by status")
        steps = metrics.gauge("lifecycle_erasure_steps", help: "Erasure steps by target and status")
        stepAttempts = metrics.counter(
            "lifecycle_erasure_step_attempts_total", help: "Erasure step attempts by target and outcome")
        completionSeconds = metrics.histogram(
            "lifecycle_erasure_completion_seconds", help: "Seconds from the account event to a completed erasure job",
            buckets: Self.completionBuckets)
        overdue = metrics.gauge(
            "lifecycle_erasure_jobs_overdue", help: "Erasure jobs not completed past their deadline")
    }
}
