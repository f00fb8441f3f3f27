import LifecycleCore
import LifecycleSQL

/// Accounts: one row per (app, `sub`) holding the columns of ``AccountRecord``.
extension SQLiteAccess {
    func account(app: String, subject: String) throws(StoreError) -> AccountRecord? {
        try sqlite {
            try connection.firstRow(
                "SELECT \(AccountRow.columns) FROM accounts WHERE app = ? AND sub = ?", [app, subject]
            ) { row throws(SQLiteError) in try AccountRow.decode(row, from: 0) }
        }
    }

    func accountCount(app: String?) throws(StoreError) -> Int {
        try sqlite {
            let count =
                if let app {
                    try connection.queryInt64("SELECT count(*) FROM accounts WHERE app = ?", [app])
                } else {
                    try connection.queryInt64("SELECT count(*) FROM accounts")
                }
            return Int(count ?? 0)
        }
    }

    /// `sub > ?` on the primary key (app, sub) is an index range scan, so every page costs the same however
    /// deep the walk is (unlike `OFFSET`). SQLite compares TEXT with BINARY collation: byte order.
    func accounts(
        app: String, afterSubject: String?, limit: Int
    ) throws(StoreError) -> [(subject: String, record: AccountRecord)] {
        try sqlite { () throws -> [(subject: String, record: AccountRecord)] in
            var page: [(subject: String, record: AccountRecord)] = []
            let columns = "sub, \(AccountRow.columns)"
            let decode = { (row: SQLiteStatement) throws(SQLiteError) in
                page.append((subject: row.text(0), record: try AccountRow.decode(row, from: 1)))
            }
            if let afterSubject {
                try connection.forEachRow(
                    "SELECT \(columns) FROM accounts WHERE app = ? AND sub > ? ORDER BY sub LIMIT ?",
                    [app, afterSubject, max(0, limit)], decode)
            } else {
                try connection.forEachRow(
                    "SELECT \(columns) FROM accounts WHERE app = ? ORDER BY sub LIMIT ?", [app, max(0, limit)], decode)
            }
            return page
        }
    }

    /// An upsert on the primary key (https://www.sqlite.org/lang_upsert.html): one statement whether the
    /// account is new or not, and `apple_token` is not in the update list, so saving a record keeps it.
    func saveAccount(app: String, subject: String, record: AccountRecord) throws(StoreError) {
        try sqlite {
            try connection.execute(
                """
                INSERT INTO accounts (app, sub, \(AccountRow.columns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
        try sqlite {
            try connection.queryInt64(
                "UPDATE accounts SET apple_token = ? WHERE app = ? AND sub = ? RETURNING 1", [sealed, app, subject])
                != nil
        }
    }

    func appleToken(app: String, subject: String) throws(StoreError) -> [UInt8]? {
        try sqlite {
            try connection.firstRow(
                "SELECT apple_token FROM accounts WHERE app = ? AND sub = ?", [app, subject]
            ) { $0.isNull(0) ? nil : $0.blob(0) } ?? nil
        }
    }
}
