import LifecycleCore

/// Account history: one row per input the state machine saw, appended in the transaction that applied it.
extension PostgresAccess {
    func appendHistory(
        app: String, subject: String, entry: AccountHistoryEntry, source: String, notificationID: Int64?
    ) throws(StoreError) -> Int64 {
        try postgres { () throws -> Int64 in
            let id = try connection.queryInt64(
                """
                INSERT INTO account_history (
                    app, sub, input_kind, identity, event_time_ms, received_at_ms, disposition, reason, from_state,
                    to_state, effects, source, notification_id
                ) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
                RETURNING id
                """,
                [
                    app, subject, entry.kind.canonicalName, entry.identity, entry.eventTime.millisecondsSinceEpoch,
                    entry.receivedAt.millisecondsSinceEpoch, entry.disposition.canonicalName, entry.disposition.reason,
                    entry.fromState?.canonicalName, entry.toState.canonicalName,
                    StoredEffectNames.encode(entry.effects), source, notificationID,
                ])
            guard let id else { throw PostgresError(message: "account_history insert returned no id") }
            return id
        }
    }

    func history(app: String, subject: String) throws(StoreError) -> [StoredHistoryEntry] {
        try postgres { () throws -> [StoredHistoryEntry] in
            var rows: [StoredHistoryEntry] = []
            for row in try connection.query(
                """
                SELECT id, input_kind, identity, event_time_ms, received_at_ms, disposition, reason, from_state,
                    to_state, effects, source, notification_id
                FROM account_history WHERE app = $1 AND sub = $2 ORDER BY id
                """, [app, subject])
            {
                rows.append(try Self.decodeHistory(row))
            }
            return rows
        }
    }

    private static func decodeHistory(_ row: PostgresRow) throws(PostgresError) -> StoredHistoryEntry {
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

    /// Counts applied inputs only. The state columns are `COLLATE "C"`, so the order is SQLite's.
    func transitionCounts() throws(StoreError) -> [(from: String, to: String, count: Int)] {
        try postgres {
            try connection.query(
                """
                SELECT coalesce(from_state, 'none') AS from_name, to_state, count(*)
                FROM account_history WHERE disposition = 'applied'
                GROUP BY from_name, to_state ORDER BY from_name, to_state
                """
            ).map { (from: $0.text(0), to: $0.text(1), count: $0.int(2)) }
        }
    }
}
