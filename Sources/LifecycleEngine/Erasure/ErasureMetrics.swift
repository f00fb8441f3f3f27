/// The erasure metrics (issue: jobs by status, steps by target and outcome, time from event to completion,
/// jobs past deadline). Target names come from the configuration, so label cardinality stays bounded.
enum ErasureMetrics {
    static let jobs = "lifecycle_erasure_jobs"
    static let steps = "lifecycle_erasure_steps"
    static let stepAttempts = "lifecycle_erasure_step_attempts_total"
    static let completionSeconds = "lifecycle_erasure_completion_seconds"
    static let overdue = "lifecycle_erasure_jobs_overdue"

    /// Buckets from one minute to 90 days: deadlines are days to months, and the tail is what matters.
    static let completionBuckets: [Double] = [60, 600, 3600, 21_600, 86_400, 259_200, 604_800, 2_592_000, 7_776_000]

    static func describe(_ metrics: MetricsRegistry) {
        metrics.describe(jobs, kind: "gauge", help: "Erasure jobs by status")
        metrics.describe(steps, kind: "gauge", help: "Erasure steps by target and status")
        metrics.describe(stepAttempts, kind: "counter", help: "Erasure step attempts by target and outcome")
        metrics.describe(
            completionSeconds, kind: "histogram", help: "Seconds from the account event to a completed erasure job",
            buckets: completionBuckets)
        metrics.describe(overdue, kind: "gauge", help: "Erasure jobs not completed past their deadline")
    }
}
