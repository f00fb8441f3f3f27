/// The poll workers' families, registered once per process and shared by every poll stream's worker.
public struct SecurityEventPollMetrics: Sendable {
    /// Polls by `result`: `ok`, `http_error` (a status other than 200), `transport_error` (connect, TLS,
    /// timeout, an answer over `pollMaxResponseBytes`), `malformed` (not an RFC 8936 answer), `no_endpoint`
    /// (the stream's poll endpoint could not be learnt).
    let polls: Counter
    /// SETs of poll answers by `outcome` (`accepted`, `duplicate`, `rejected`, `unavailable`).
    let sets: Counter
    /// `jti`s acknowledged in a poll the transmitter answered 200 to.
    let acks: Counter
    /// SETs reported in `setErrs` in a poll the transmitter answered 200 to, by `err`.
    let setErrors: Counter

    public init(_ metrics: MetricsRegistry) {
        polls = metrics.counter(
            "lifecycle_signal_polls_total", help: "Polls of Shared Signals poll endpoints (RFC 8936), by result.")
        sets = metrics.counter(
            "lifecycle_signal_poll_sets_total", help: "SETs received in poll answers (RFC 8936), by outcome.")
        acks = metrics.counter(
            "lifecycle_signal_poll_acks_total",
            help: "SETs acknowledged to a transmitter's poll endpoint after their commit (RFC 8936 ack).")
        setErrors = metrics.counter(
            "lifecycle_signal_poll_set_errors_total",
            help: "SETs reported to a transmitter's poll endpoint as refused (RFC 8936 setErrs), by err.")
    }
}
