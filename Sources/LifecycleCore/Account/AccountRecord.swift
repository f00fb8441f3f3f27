/// The persisted value of one account (one app, one `sub`): plain fields a store saves as columns and
/// hands back to ``AccountStateMachine/init(record:)``.
///
/// Besides the visible ``state`` it keeps the last applied input of each ``AccountAspect``; that is what
/// makes the outcome independent of arrival order (see ``AccountStateMachine``).
public struct AccountRecord: Hashable, Sendable {
    public var state: AccountState
    /// The newest `event_time` among applied inputs, any aspect.
    public var lastAppliedEventTime: Instant
    /// Whether mail to the relay address reaches the user. True until Apple reports otherwise.
    public var emailForwarding: Bool
    /// `event_time` and kind of the last applied e-mail input; nil when Apple never reported one.
    public var emailForwardingEventTime: Instant?
    public var emailForwardingInput: AccountInputKind?
    /// `event_time` and kind of the last applied access input (`linked`, `consent-revoked`,
    /// `credentials-invalid`); nil when none was applied.
    public var accessEventTime: Instant?
    public var accessInput: AccountInputKind?
    /// When the service created the record (receipt time of the first input).
    public var createdAt: Instant
    /// Receipt time of the last applied input.
    public var updatedAt: Instant
    /// `event_time` of the deletion (erasure deadlines start here, DESIGN.md §7); nil unless deleted.
    public var deletedAt: Instant?
    /// Which deletion: ``AccountInputKind/accountDeleted`` or ``AccountInputKind/inAppDeletion``.
    public var deletedBy: AccountInputKind?

    public init(
        state: AccountState, lastAppliedEventTime: Instant, emailForwarding: Bool,
        emailForwardingEventTime: Instant?, emailForwardingInput: AccountInputKind?, accessEventTime: Instant?,
        accessInput: AccountInputKind?, createdAt: Instant, updatedAt: Instant, deletedAt: Instant?,
        deletedBy: AccountInputKind?
    ) {
        self.state = state
        self.lastAppliedEventTime = lastAppliedEventTime
        self.emailForwarding = emailForwarding
        self.emailForwardingEventTime = emailForwardingEventTime
        self.emailForwardingInput = emailForwardingInput
        self.accessEventTime = accessEventTime
        self.accessInput = accessInput
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.deletedBy = deletedBy
    }

    /// A record that exists but has heard nothing yet: linked, forwarding assumed on. Only the machine
    /// creates one, for the first input of an unknown `sub`.
    static func blank(createdAt: Instant, eventTime: Instant) -> AccountRecord {
        AccountRecord(
            state: .linked, lastAppliedEventTime: eventTime, emailForwarding: true, emailForwardingEventTime: nil,
            emailForwardingInput: nil, accessEventTime: nil, accessInput: nil, createdAt: createdAt,
            updatedAt: createdAt, deletedAt: nil, deletedBy: nil)
    }

    /// The order key of the last applied input of an aspect, or nil when none was applied.
    public func lastApplied(_ aspect: AccountAspect) -> AccountInputOrderKey? {
        switch aspect {
        case .emailForwarding:
            guard let time = emailForwardingEventTime, let kind = emailForwardingInput else { return nil }
            return AccountInputOrderKey(eventTime: time, kind: kind)
        case .access:
            guard let time = accessEventTime, let kind = accessInput else { return nil }
            return AccountInputOrderKey(eventTime: time, kind: kind)
        case .existence:
            guard let time = deletedAt, let kind = deletedBy else { return nil }
            return AccountInputOrderKey(eventTime: time, kind: kind)
        }
    }
}
