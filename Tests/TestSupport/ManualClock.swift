import LifecycleCore
import Synchronization

/// A clock tests set and advance by hand; pass ``now`` wherever production code takes a clock closure.
public final class ManualClock: Sendable {
    private let current: Mutex<Instant>

    public init(_ start: Instant = TestFixtures.issuedAt) {
        current = Mutex(start)
    }

    public var instant: Instant { current.withLock { $0 } }

    /// A closure reading this clock, for `now: @Sendable () -> Instant` parameters.
    public var now: @Sendable () -> Instant { { [self] in self.instant } }

    public func advance(seconds: Int64) {
        current.withLock { $0 = $0.adding(seconds: seconds) }
    }

    public func set(_ instant: Instant) {
        current.withLock { $0 = instant }
    }
}
