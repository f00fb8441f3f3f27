/// One line of an account's history: every input, whatever its disposition, so reports can show what
/// arrived, in which order, and what it did.
public struct AccountHistoryEntry: Hashable, Sendable {
    public var identity: String
    public var kind: AccountInputKind
    public var eventTime: Instant
    public var receivedAt: Instant
    public var disposition: AccountDisposition
    /// The state before the input; nil when this input created the record.
    public var fromState: AccountState?
    public var toState: AccountState
    public var effects: [AccountEffect]

    public init(
        identity: String, kind: AccountInputKind, eventTime: Instant, receivedAt: Instant,
        disposition: AccountDisposition, fromState: AccountState?, toState: AccountState, effects: [AccountEffect]
    ) {
        self.identity = identity
        self.kind = kind
        self.eventTime = eventTime
        self.receivedAt = receivedAt
        self.disposition = disposition
        self.fromState = fromState
        self.toState = toState
        self.effects = effects
    }
}
