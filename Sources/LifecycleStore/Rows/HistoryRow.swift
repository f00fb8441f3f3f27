import LifecycleCore

/// One `account_history` row as both stores select and decode it.
enum HistoryRow {
    static let columns = """
        id, input_kind, identity, event_time_ms, received_at_ms, disposition, reason, from_state, to_state, effects,
        source, notification_id
        """

    static func decode<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> StoredHistoryEntry {
        guard let kind = AccountInputKind(canonicalName: row.text(1)) else {
            throw Row.unreadable("account_history", "input_kind")
        }
        guard let disposition = AccountDisposition(canonicalName: row.text(5), reason: row.optionalText(6)) else {
            throw Row.unreadable("account_history", "disposition")
        }
        var fromState: AccountState?
        if let name = row.optionalText(7) {
            guard let state = AccountState(canonicalName: name) else {
                throw Row.unreadable("account_history", "from_state")
            }
            fromState = state
        }
        guard let toState = AccountState(canonicalName: row.text(8)) else {
            throw Row.unreadable("account_history", "to_state")
        }
        guard let effects = StoredEffectNames.decode(row.text(9)) else {
            throw Row.unreadable("account_history", "effects")
        }
        let entry = AccountHistoryEntry(
            identity: row.text(2), kind: kind, eventTime: row.instant(3), receivedAt: row.instant(4),
            disposition: disposition, fromState: fromState, toState: toState, effects: effects)
        return StoredHistoryEntry(
            id: row.int64(0), entry: entry, source: row.text(10), notificationID: row.optionalInt64(11))
    }
}
