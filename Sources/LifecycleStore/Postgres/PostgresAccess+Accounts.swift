import LifecycleCore
import LifecycleSQL

/// Accounts: one row per (app, `sub`) holding the columns of ``AccountRecord``.
extension PostgresAccess {
    func account(app: String, subject: String) throws(StoreError) -> AccountRecord? {
        try postgres { () throws -> AccountRecord? in
            guard
                let row = try connection.query(
                    "SELECT \(AccountRow.columns) FROM accounts WHERE app = $1 AND sub = $2", [app, subject]
                ).first
            else { return nil }
            return try AccountRow.decode(row, from: 0)
        }
    }

    func accountCount(app: String?) throws(StoreError) -> Int {
        try postgres {
            let count =
                if let app {
                    try connection.queryInt64("SELECT count(*) FROM accounts WHERE app = $1", [app])
                } else {
                    try connection.queryInt64("SELECT count(*) FROM accounts")
                }
            return Int(count ?? 0)
        }
    }

    /// `sub` is `COLLATE "C"` in the schema, so `>` and `ORDER BY` are byte order and walk the primary key.
    func accounts(
        app: String, afterSubject: String?, limit: Int
    ) throws(StoreError) -> [(subject: String, record: AccountRecord)] {
        try postgres { () throws -> [(subject: String, record: AccountRecord)] in
            let columns = "sub, \(AccountRow.columns)"
            let rows =
                if let afterSubject {
                    try connection.query(
                        "SELECT \(columns) FROM accounts WHERE app = $1 AND sub > $2 ORDER BY sub LIMIT $3",
                        [app, afterSubject, max(0, limit)])
                } else {
                    try connection.query(
                        "SELECT \(columns) FROM accounts WHERE app = $1 ORDER BY sub LIMIT $2", [app, max(0, limit)])
                }
            var page: [(subject: String, record: AccountRecord)] = []
            for row in rows {
                page.append((subject: row.text(0), record: try AccountRow.decode(row, from: 1)))
            }
            return page
        }
    }

    /// An upsert on the primary key; `apple_token` is not in the update list, so saving a record keeps it.
    func saveAccount(app: String, subject: String, record: AccountRecord) throws(StoreError) {
        try postgres {
            _ = try connection.query(
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

    func setAppleToken(app: String, subject: String, sealed: [UInt8]?) throws(StoreError) -> Bool {
        try postgres {
            try !connection.query(
                "UPDATE accounts SET apple_token = $1 WHERE app = $2 AND sub = $3 RETURNING 1", [sealed, app, subject]
            ).isEmpty
        }
    }

    func appleToken(app: String, subject: String) throws(StoreError) -> [UInt8]? {
        try postgres { () throws -> [UInt8]? in
            guard
                let row = try connection.query(
                    "SELECT apple_token FROM accounts WHERE app = $1 AND sub = $2", [app, subject]
                ).first, !row.isNull(0)
            else { return nil }
            guard let bytes = row.bytea(0) else { throw PostgresError.unreadable("accounts", "apple_token") }
            return bytes
        }
    }
}
