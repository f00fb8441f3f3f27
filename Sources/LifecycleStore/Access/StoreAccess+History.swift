import LifecycleCore
import LifecycleSQL

/// Account history: one row per input the state machine saw, appended in the transaction that applied it.
extension StoreAccess {
    func appendHistory(
        app: String, subject: String, entry: AccountHistoryEntry, source: String, notificationID: Int64?
    ) throws(StoreError) -> Int64 {
        try sql { () throws -> Int64 in
            let id = try connection.fetchInt64(
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
            guard let id else { throw Connection.failure("account_history insert returned no id") }
            return id
        }
    }

    func history(app: String, subject: String) throws(StoreError) -> [StoredHistoryEntry] {
        try sql {
            try connection.fetchAll(
                """
                SELECT \(HistoryRow.columns)
                FROM account_history WHERE app = $1 AND sub = $2 ORDER BY id
                """, [app, subject]
            ) { row in try HistoryRow.decode(row) }
        }
    }

    /// Counts applied inputs only: a stale, duplicate or ignored input is recorded but moved nothing. The
    /// state columns compare in byte order on both databases (`COLLATE "C"` on PostgreSQL), so the order is
    /// the same.
    func transitionCounts() throws(StoreError) -> [(from: String, to: String, count: Int)] {
        try sql {
            try connection.fetchAll(
                """
                SELECT coalesce(from_state, 'none') AS from_name, to_state, count(*)
                FROM account_history WHERE disposition = 'applied'
                GROUP BY from_name, to_state ORDER BY from_name, to_state
                """
            ) { (from: $0.text(0), to: $0.text(1), count: $0.int(2)) }
        }
    }
}
