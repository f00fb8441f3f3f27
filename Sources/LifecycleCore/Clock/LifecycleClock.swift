/// The one source of time. Domain code never reads the system clock: it is handed an instant, and services,
/// the HTTP server and the store are handed a clock, so tests run against a fixed or stepped time
/// (``ManualClock``) and production against ``SystemClock``.
///
/// Two readings, because they answer different questions: wall time says *when* (records, logs, token
/// `iat`/`exp`, schedules, the HTTP `Date` field) and may step; monotonic time says *how long* (deadlines,
/// latencies, timeouts) and never steps, so a wall-clock adjustment cannot expire or extend a deadline
/// (POSIX `CLOCK_MONOTONIC`).
public protocol LifecycleClock: Sendable {
    /// Wall time, in milliseconds since the Unix epoch.
    func now() -> Instant
    /// Monotonic nanoseconds from an arbitrary origin; only differences are meaningful.
    func monotonicNanoseconds() -> UInt64
}

extension Duration {
    /// The duration in seconds, with its fraction: what the benchmarks and the reports' phase timings print.
    public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole nanoseconds, clamped to zero for negative durations and saturating for huge ones, for adding to
    /// ``LifecycleClock/monotonicNanoseconds()`` (the saturated value stays far from overflow when added).
    public var nanosecondsForDeadline: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return UInt64.max / 2 }
        return whole &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
