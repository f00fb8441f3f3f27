/// The daily probe's metrics: probes by outcome (``AppleProbeOutcome``), how long Apple took to answer each,
/// and which apps have probing paused because Apple refused their client. Labels are closed sets (outcomes)
/// or configured app IDs, never request data.
struct AppleProbeMetrics: Sendable {
    /// Buckets from 10 ms to the longest REST timeout (120 s): a grant normally answers within a second.
    static let durationBuckets: [Double] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120]

    let probes: Counter
    let durationSeconds: Histogram
    let paused: Gauge

    init(_ metrics: MetricsRegistry) {
        probes = metrics.counter(
            "lifecycle_apple_probes_total",
            help: "Daily refresh_token probes of held Apple tokens, by outcome.")
        durationSeconds = metrics.histogram(
            "lifecycle_apple_probe_duration_seconds",
            help: "Seconds Apple took to answer a daily probe's refresh_token grant, by outcome.",
            buckets: Self.durationBuckets)
        paused = metrics.gauge(
            "lifecycle_apple_probe_paused",
            help: "1 while probing is paused for the app because Apple refused its client (invalid_client).")
    }
}

/// What one probe concluded: the `outcome` label of `lifecycle_apple_probes_total`.
public enum AppleProbeOutcome: String, Sendable, Hashable, CaseIterable {
    /// Apple issued tokens: the grant still works.
    case valid
    /// `invalid_grant`: the account's sessions were ended (`credentials-invalid`).
    case invalidGrant = "invalid_grant"
    /// `invalid_client` (or another refusal of the client itself): no account changed, the app's probing paused.
    case clientRefused = "client_refused"
    /// 5xx, 429, a timeout or a transport failure: the claim was given back, to be tried again later that day.
    case retry
    /// Any other answer (a malformed response, `invalid_request`): the day's probe is spent, tried again tomorrow.
    case failed
}
