import LifecycleCore
import LifecycleSQL

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
                SELECT \(HistoryRow.columns)
                FROM account_history WHERE app = ? AND sub = ? ORDER BY id
                """, [app, subject]
            ) { row throws(SQLiteError) in
                rows.append(try HistoryRow.decode(row))
            }
            return rows
        }
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
