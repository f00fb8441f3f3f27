import LifecycleCore

/// Account history: one row per input the state machine saw, appended in the transaction that applied it.
extension SQLiteAccess {
    func appendHistory(
        app: String, subject: String, entry: AccountHistoryEntry, source: String, notificationID: Int64?
    ) throws(StoreError) -> Int64 {
        try sqlite { () throws -> Int64 in
            let id = try connection.queryInt64(
                """
                INSERT INTO account_history (
                    app, sub, input_kind, identity, event_time_ms, received_at_ms, disposition, reason, from_state,
                    to_state, effects, source, notification_id
                ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                RETURNING id
                """,
                [
                    app, subject, entry.kind.canonicalName, entry.identity, entry.eventTime.millisecondsSinceEpoch,
                    entry.receivedAt.millisecondsSinceEpoch, entry.disposition.canonicalName, entry.disposition.reason,
                    entry.fromState?.canonicalName, entry.toState.canonicalName,
                    StoredEffectNames.encode(entry.effects), source, notificationID,
                ])
            guard let id else { throw SQLiteError(code: 1, message: "account_history insert returned no id") }
            return id
        }
    }

    func history(app: String, subject: String) throws(StoreError) -> [StoredHistoryEntry] {
        try sqlite { () throws -> [StoredHistoryEntry] in
            var rows: [StoredHistoryEntry] = []
            try connection.forEachRow(
                """
                SELECT id, input_kind, identity, event_time_ms, received_at_ms, disposition, reason, from_state,
                    to_state, effects, source, notification_id
                FROM account_history WHERE app = ? AND sub = ? ORDER BY id
                """, [app, subject]
            ) { row throws(SQLiteError) in
                rows.append(try Self.decodeHistory(row))
            }
            return rows
        }
    }

    private static func decodeHistory(_ row: SQLiteStatement) throws(SQLiteError) -> StoredHistoryEntry {
        guard let kind = AccountInputKind(canonicalName: row.text(1)) else {
            throw .unreadable("account_history", "input_kind")
        }
        guard let disposition = AccountDisposition(canonicalName: row.text(5), reason: row.optionalText(6)) else {
            throw .unreadable("account_history", "disposition")
        }
        var fromState: AccountState?
        if let name = row.optionalText(7) {
            guard let state = AccountState(canonicalName: name) else {
                throw .unreadable("account_history", "from_state")
            }
            fromState = state
        }
        guard let toState = AccountState(canonicalName: row.text(8)) else {
            throw .unreadable("account_history", "to_state")
        }
        guard let effects = StoredEffectNames.decode(row.text(9)) else {
            throw .unreadable("account_history", "effects")
        }
        let entry = AccountHistoryEntry(
            identity: row.text(2), kind: kind, eventTime: Instant(millisecondsSinceEpoch: row.int64(3)),
            receivedAt: Instant(millisecondsSinceEpoch: row.int64(4)), disposition: disposition,
            fromState: fromState, toState: toState, effects: effects)
        return StoredHistoryEntry(
            id: row.int64(0), entry: entry, source: row.text(10), notificationID: row.optionalInt64(11))
    }

    /// Counts applied inputs only: a stale, duplicate or ignored input is recorded but moved nothing.
    func transitionCounts() throws(StoreError) -> [(from: String, to: String, count: Int)] {
        try sqlite { () throws -> [(from: String, to: String, count: Int)] in
            var rows: [(from: String, to: String, count: Int)] = []
            try connection.forEachRow(
                """
                SELECT coalesce(from_state, 'none') AS from_name, to_state, count(*)
                FROM account_history WHERE disposition = 'applied'
                GROUP BY from_name, to_state ORDER BY from_name, to_state
                """
            ) { row in
                rows.append((from: row.text(0), to: row.text(1), count: row.int(2)))
            }
            return rows
        }
    }
}
