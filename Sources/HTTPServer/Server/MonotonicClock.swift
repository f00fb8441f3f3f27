import Glibc

/// Deadlines are kept in monotonic nanoseconds so a wall-clock step cannot expire or extend them.
enum MonotonicClock {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to zero for negative durations and saturating for huge ones.
    var nanosecondsForDeadline: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return UInt64.max / 2 }
        return whole &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
