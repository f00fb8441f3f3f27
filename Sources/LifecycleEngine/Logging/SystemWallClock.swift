import Foundation
import LifecycleCore

/// The real clock, optionally shifted by a fixed offset.
///
/// The offset exists for testing only: `LIFECYCLE_CLOCK_OFFSET_SECONDS`, read once when a command starts
/// (``fromEnvironment(_:)``), moves every instant the process uses — the schedule of `reconcile.dailyAt`,
/// heartbeats, report dates, token `iat`/`exp` checks, leases — so a test reaches a night's schedule without
/// waiting for it. It is never needed in production; `serve` logs a warning when it is set.
public struct SystemWallClock: WallClock {
    /// The environment variable holding the test offset, in whole seconds (negative is the past).
    public static let offsetVariable = "LIFECYCLE_CLOCK_OFFSET_SECONDS"
    /// About a century either way: more cannot be a test of anything.
    public static let offsetRange: ClosedRange<Int64> = -3_155_760_000...3_155_760_000

    /// Added to the system time; 0 unless a test asked for an offset.
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

    /// The clock a command runs on: shifted by `LIFECYCLE_CLOCK_OFFSET_SECONDS` when it is set.
    /// - Throws: ``ConfigurationError`` naming the variable when it is not a whole number of seconds in
    ///   ``offsetRange``.
    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> SystemWallClock {
        guard let text = environment[offsetVariable], !text.isEmpty else { return SystemWallClock() }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.count <= 10, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let seconds = Int64(text), offsetRange.contains(seconds)
        else {
            throw ConfigurationError(
                file: "environment", field: offsetVariable, problem: "'\(text)' is not a whole number of seconds",
                fix: "unset it (it is for tests only), or give seconds such as 3600 or -86400")
        }
        return SystemWallClock(offsetMilliseconds: seconds * 1000)
    }
}
