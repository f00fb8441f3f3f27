import LifecycleCore

/// A `subject_keys` row and a `master_keys` row, as both stores select and decode them.
enum SubjectKeyRow {
    static let columns = "app, sub, scope, wrapped_key, master_key_id, created_at_ms, destroyed_at_ms"

    static func decode<Row: StoreRow>(_ row: Row, from first: Int = 0) throws(Row.Failure) -> StoredSubjectKey {
        guard let scope = SubjectKeyScope(canonicalName: row.text(first + 2)) else {
            throw Row.unreadable("subject_keys", "scope")
        }
        return StoredSubjectKey(
            app: row.text(first), subject: row.text(first + 1), scope: scope, wrappedKey: row.optionalBytes(first + 3),
            masterKeyID: row.text(first + 4), createdAt: row.instant(first + 5),
            destroyedAt: row.optionalInstant(first + 6))
    }

    static let masterKeyColumns = "id, state, added_at_ms, retired_at_ms"

    static func decodeMasterKey<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> StoredMasterKey {
        guard let state = MasterKeyState(rawValue: row.text(1)) else { throw Row.unreadable("master_keys", "state") }
        return StoredMasterKey(
            id: row.text(0), state: state, addedAt: row.instant(2), retiredAt: row.optionalInstant(3))
    }

    /// The statements that clear a scope's values from its columns, and count the rows still holding one.
    /// Clear-text columns of an older release are cleared with the sealed ones.
    static func clearing(_ scope: SubjectKeyScope) -> (clear: String, remaining: String) {
        switch scope {
        case .notifications:
            (
                """
                UPDATE notifications SET sealed_email = NULL, sealed_raw_jws = NULL, email = NULL, raw_jws = NULL
                WHERE app = $1 AND sub = $2 AND (sealed_email IS NOT NULL OR sealed_raw_jws IS NOT NULL
                    OR email IS NOT NULL OR raw_jws IS NOT NULL)
                RETURNING 1
                """,
                """
                SELECT count(*) FROM notifications
                WHERE app = $1 AND sub = $2 AND (sealed_email IS NOT NULL OR sealed_raw_jws IS NOT NULL
                    OR email IS NOT NULL OR raw_jws IS NOT NULL)
                """
            )
        case .appleTokens:
            (
                """
                UPDATE apple_tokens SET sealed_refresh_token = NULL
                WHERE app = $1 AND sub = $2 AND sealed_refresh_token IS NOT NULL
                RETURNING 1
                """,
                "SELECT count(*) FROM apple_tokens WHERE app = $1 AND sub = $2 AND sealed_refresh_token IS NOT NULL"
            )
        }
    }
}
