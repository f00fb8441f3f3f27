import Glibc

/// Wall-clock time for bookkeeping the store does on its own (when a migration ran). Domain times are
/// always passed in by callers, so tests with a fixed clock stay deterministic.
enum SystemClock {
    static func nowMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
