/// One input to an account's state machine, with the times that order it.
public struct AccountInput: Hashable, Sendable {
    public var kind: AccountInputKind
    /// When it happened at the source (Apple's `event_time`, the app's sign-in time, the probe time).
    /// Inputs are applied in this order, never in arrival order.
    public var eventTime: Instant
    /// When the service received it. The machine never reads a clock: this is the only "now" it sees.
    public var receivedAt: Instant
    /// The source's identity for this input: the notification `jti`, the app's request id, or the
    /// reconciler run id. Kept in history; the inbox's unique `jti` catches redeliveries before the machine,
    /// and the machine itself recognises a duplicate by kind and `event_time` (DESIGN.md §5).
    public var identity: String

    public init(kind: AccountInputKind, eventTime: Instant, receivedAt: Instant, identity: String) {
        self.kind = kind
        self.eventTime = eventTime
        self.receivedAt = receivedAt
        self.identity = identity
    }

    /// The input for a verified Apple notification, or nil when its event type is unknown (not a state input).
    public init?(notification: VerifiedNotification, receivedAt: Instant) {
        guard let kind = AccountInputKind(appleEventType: notification.event.type) else { return nil }
        self.init(
            kind: kind, eventTime: notification.event.eventTime, receivedAt: receivedAt, identity: notification.jti)
    }

    /// The order of inputs within one aspect: `event_time`, then ``AccountInputKind/tieBreakRank``.
    public var orderKey: AccountInputOrderKey { AccountInputOrderKey(eventTime: eventTime, kind: kind) }
}

/// `event_time` plus the kind that broke a tie: what the record remembers of the last applied input of
/// an aspect, and what decides `stale` versus `duplicate` versus newer.
public struct AccountInputOrderKey: Hashable, Sendable, Comparable {
    public var eventTime: Instant
    public var kind: AccountInputKind

    public init(eventTime: Instant, kind: AccountInputKind) {
        self.eventTime = eventTime
        self.kind = kind
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.eventTime != rhs.eventTime { return lhs.eventTime < rhs.eventTime }
        return lhs.kind.tieBreakRank < rhs.kind.tieBreakRank
    }
}
