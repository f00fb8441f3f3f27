import Synchronization

/// A clock that moves only when told to (tests, `--at`, `--as-of`): wall and monotonic time start where they
/// are set and advance together by ``advance(by:)``, so a deadline test steps past a deadline instead of
/// sleeping until it.
public final class ManualClock: LifecycleClock {
    private struct Reading {
        var instant: Instant
        var monotonic: UInt64
    }

    private let reading: Mutex<Reading>

    /// Starts at `instant` (wall) and `monotonicNanoseconds` (monotonic).
    public init(_ instant: Instant = Instant(millisecondsSinceEpoch: 0), monotonicNanoseconds: UInt64 = 0) {
        reading = Mutex(Reading(instant: instant, monotonic: monotonicNanoseconds))
    }

    public func now() -> Instant { reading.withLock { $0.instant } }

    public func monotonicNanoseconds() -> UInt64 { reading.withLock { $0.monotonic } }

    /// Moves both readings forward by `duration` (a negative duration moves neither).
    public func advance(by duration: Duration) {
        let nanoseconds = duration.nanosecondsForDeadline
        reading.withLock { reading in
            reading.monotonic &+= nanoseconds
            reading.instant = reading.instant.adding(milliseconds: Int64(nanoseconds / 1_000_000))
        }
    }

    /// Sets the wall time (a step, as an administrator or NTP may make); monotonic time does not move.
    public func set(_ instant: Instant) {
        reading.withLock { $0.instant = instant }
    }
}
