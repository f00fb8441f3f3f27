import LifecycleCore

/// A record that one service instance was up and able to receive notifications at an instant. Gaps between
/// heartbeats are the windows a reconciliation reports as `notification-gap` (DESIGN.md §7).
public struct Heartbeat: Sendable, Hashable {
    /// A stable name for the instance (host name and port, or the configured instance id).
    public var instance: String
    public var at: Instant

    public init(instance: String, at: Instant) {
        self.instance = instance
        self.at = at
    }
}
