/// What applying one input produced: the record to save, what happened to the input, the effects to enqueue
/// and the history line, all to be written in one transaction (DESIGN.md §1).
public struct AccountOutcome: Hashable, Sendable {
    /// The record after the input (unchanged unless ``disposition`` is ``AccountDisposition/applied``,
    /// except that the first input of an unknown `sub` always creates it).
    public var record: AccountRecord
    public var disposition: AccountDisposition
    public var effects: [AccountEffect]
    public var history: AccountHistoryEntry

    public init(
        record: AccountRecord, disposition: AccountDisposition, effects: [AccountEffect],
        history: AccountHistoryEntry
    ) {
        self.record = record
        self.disposition = disposition
        self.effects = effects
        self.history = history
    }

    public var state: AccountState { record.state }
}
