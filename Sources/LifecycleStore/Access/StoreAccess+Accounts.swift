import LifecycleCore
import LifecycleSQL

/// Accounts: one row per (app, `sub`) holding the columns of ``AccountRecord``.
extension StoreAccess {
    func account(app: String, subject: String) throws(StoreError) -> AccountRecord? {
        try sql {
            try connection.fetchOne(
                "SELECT \(AccountRow.columns) FROM accounts WHERE app = $1 AND sub = $2", [app, subject]
            ) { row in try AccountRow.decode(row, from: 0) }
        }
    }

    func accountCount(app: String?) throws(StoreError) -> Int {
        try sql {
            let count =
                if let app {
                    try connection.fetchInt64("SELECT count(*) FROM accounts WHERE app = $1", [app])
                } else {
                    try connection.fetchInt64("SELECT count(*) FROM accounts")
                }
            return Int(count ?? 0)
        }
    }

    /// `sub > $2` on the primary key (app, sub) is an index range scan, so every page costs the same however
    /// deep the walk is (unlike `OFFSET`). Both compare `sub` in byte order: SQLite's BINARY collation, and
    /// `COLLATE "C"` in the PostgreSQL schema.
    func accounts(
        app: String, afterSubject: String?, limit: Int
    ) throws(StoreError) -> [(subject: String, record: AccountRecord)] {
        try sql { () throws -> [(subject: String, record: AccountRecord)] in
            let columns = "sub, \(AccountRow.columns)"
            let decode = { (row: Row) throws -> (subject: String, record: AccountRecord) in
                (subject: row.text(0), record: try AccountRow.decode(row, from: 1))
            }
            if let afterSubject {
                return try connection.fetchAll(
                    "SELECT \(columns) FROM accounts WHERE app = $1 AND sub > $2 ORDER BY sub LIMIT $3",
                    [app, afterSubject, max(0, limit)], decode)
            }
            return try connection.fetchAll(
                "SELECT \(columns) FROM accounts WHERE app = $1 ORDER BY sub LIMIT $2", [app, max(0, limit)], decode)
        }
    }

    /// An upsert on the primary key (https://www.sqlite.org/lang_upsert.html, the same syntax on PostgreSQL):
    /// one statement whether the account is new or not. `apple_token` is not in the update list (no release
    /// writes it: Apple tokens live in `apple_tokens`).
    func saveAccount(app: String, subject: String, record: AccountRecord) throws(StoreError) {
        try sql {
            try connection.run(
                """
                INSERT INTO accounts (app, sub, \(AccountRow.columns))
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
                ON CONFLICT (app, sub) DO UPDATE SET
                    state = excluded.state,
                    last_applied_event_time_ms = excluded.last_applied_event_time_ms,
                    email_forwarding = excluded.email_forwarding,
                    email_forwarding_event_time_ms = excluded.email_forwarding_event_time_ms,
                    email_forwarding_input = excluded.email_forwarding_input,
                    access_event_time_ms = excluded.access_event_time_ms,
                    access_input = excluded.access_input,
                    created_at_ms = excluded.created_at_ms,
                    updated_at_ms = excluded.updated_at_ms,
                    deleted_at_ms = excluded.deleted_at_ms,
                    deleted_by = excluded.deleted_by
                """,
                [
                    app, subject, record.state.canonicalName, record.lastAppliedEventTime.millisecondsSinceEpoch,
                    record.emailForwarding, record.emailForwardingEventTime?.millisecondsSinceEpoch,
                    record.emailForwardingInput?.canonicalName, record.accessEventTime?.millisecondsSinceEpoch,
                    record.accessInput?.canonicalName, record.createdAt.millisecondsSinceEpoch,
                    record.updatedAt.millisecondsSinceEpoch, record.deletedAt?.millisecondsSinceEpoch,
                    record.deletedBy?.canonicalName,
                ])
        }
    }
}
