/// The source of "now". Domain code never reads the system clock: it is handed an instant, and services are
/// handed a clock, so tests run against a fixed or stepped time.
public protocol WallClock: Sendable {
    func now() -> Instant
}

/// A clock that always answers the same instant (tests, `--at`, `--as-of`).
public struct FixedWallClock: WallClock {
    public var instant: Instant
    public init(_ instant: Instant) { self.instant = instant }
    public func now() -> Instant { instant }
}
