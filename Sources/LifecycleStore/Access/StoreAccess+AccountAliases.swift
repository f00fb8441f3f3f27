import LifecycleCore
import LifecycleSQL

/// The identifiers a security event may name an account by (``NewAccountAlias``): one append-only table, the
/// latest row of an identifier in force.
extension StoreAccess {
    static var accountAliasColumns: String {
        "id, app, alias, sub, kind, notification_id, recorded_at_ms"
    }

    func decodeAlias(_ row: Row) throws -> StoredAccountAlias {
        guard let kind = AccountAliasKind(rawValue: row.text(4)) else {
            throw Row.unreadable("account_aliases", "kind")
        }
        return StoredAccountAlias(
            id: row.int64(0),
            alias: NewAccountAlias(
                app: row.text(1), alias: row.text(2), subject: row.text(3), kind: kind,
                notificationID: row.int64(5), recordedAt: row.instant(6)))
    }

    func accountAliasInForce(app: String, alias: String) throws(StoreError) -> StoredAccountAlias? {
        try sql {
            try connection.fetchAll(
                """
                SELECT \(Self.accountAliasColumns) FROM account_aliases WHERE app = $1 AND alias = $2
                ORDER BY id DESC LIMIT 1
                """, [app, alias]
            ) { row in try decodeAlias(row) }.first
        }
    }

    func accountAliases(app: String, subject: String) throws(StoreError) -> [StoredAccountAlias] {
        try sql {
            try connection.fetchAll(
                """
                SELECT \(Self.accountAliasColumns) FROM account_aliases
                WHERE app = $1 AND alias IN (
                    SELECT alias FROM account_aliases WHERE app = $1 AND (sub = $2 OR alias = $2))
                ORDER BY id
                """, [app, subject]
            ) { row in try decodeAlias(row) }
        }
    }

    func accountAliasCount(app: String, alias: String, kind: AccountAliasKind) throws(StoreError) -> Int {
        try sql {
            Int(
                try connection.fetchInt64(
                    "SELECT count(*) FROM account_aliases WHERE app = $1 AND alias = $2 AND kind = $3",
                    [app, alias, kind.rawValue]) ?? 0)
        }
    }

    func recordAccountAlias(_ alias: NewAccountAlias) throws(StoreError) -> Int64 {
        try sql { () throws -> Int64 in
            guard
                let id = try connection.fetchInt64(
                    """
                    INSERT INTO account_aliases (app, alias, sub, kind, notification_id, recorded_at_ms)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    RETURNING id
                    """,
                    [
                        alias.app, alias.alias, alias.subject, alias.kind.rawValue, alias.notificationID,
                        alias.recordedAt.millisecondsSinceEpoch,
                    ])
            else { throw Connection.failure("account alias insert returned no id") }
            return id
        }
    }
}
