/// A point in time as whole milliseconds since the Unix epoch (UTC).
///
/// Apple's `event_time` is in milliseconds in real traffic, and ordering and de-duplication use it
/// exactly, so the domain keeps integer milliseconds rather than floating-point dates.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var millisecondsSinceEpoch: Int64

    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    public init(secondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = secondsSinceEpoch &* 1000
    }

    public var secondsSinceEpoch: Int64 { millisecondsSinceEpoch / 1000 }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    public func adding(milliseconds: Int64) -> Instant {
        Instant(millisecondsSinceEpoch: millisecondsSinceEpoch &+ milliseconds)
    }

    public func adding(seconds: Int64) -> Instant { adding(milliseconds: seconds &* 1000) }

    /// RFC 3339 / ISO 8601 in UTC with millisecond precision, e.g. `2025-07-15T09:36:30.719Z`.
    public var iso8601: String { ISO8601Format.format(self) }

    public var description: String { iso8601 }
}
