#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real clock (`CLOCK_REALTIME` and `CLOCK_MONOTONIC`), its wall time optionally shifted by a fixed offset.
///
/// The offset exists for testing only: `LIFECYCLE_CLOCK_OFFSET_SECONDS`, read once when a command starts, moves
/// every instant the process uses — the schedule of `reconcile.dailyAt`, heartbeats, report dates, token
/// `iat`/`exp` checks, leases — so a test reaches a night's schedule without waiting for it. It is never
/// needed in production. Monotonic time is never shifted: durations do not depend on it.
public struct SystemClock: LifecycleClock {
    /// The environment variable holding the test offset, in whole seconds (negative is the past).
    public static let offsetVariable = "LIFECYCLE_CLOCK_OFFSET_SECONDS"
    /// About a century either way: more cannot be a test of anything.
    public static let offsetRange: ClosedRange<Int64> = -3_155_760_000...3_155_760_000

    /// Added to the system's wall time; 0 unless a test asked for an offset.
    public var offsetMilliseconds: Int64

    public init(offsetMilliseconds: Int64 = 0) {
        self.offsetMilliseconds = offsetMilliseconds
    }

    public func now() -> Instant {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Instant(
            millisecondsSinceEpoch: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000 + offsetMilliseconds)
    }

    public func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
