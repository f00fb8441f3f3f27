import LifecycleCore
import LifecycleSQL

/// The Apple token vault: one `apple_tokens` row per (app, `sub`) that ever had a token.
extension StoreAccess {
    func appleToken(app: String, subject: String) throws(StoreError) -> StoredAppleToken? {
        try sql {
            try connection.fetchOne(
                "SELECT \(AppleTokenRow.columns) FROM apple_tokens WHERE app = $1 AND sub = $2", [app, subject]
            ) { row in try AppleTokenRow.decode(row) }
        }
    }

    /// Only for an existing account (the `INSERT … SELECT` finds none otherwise). A new token replaces the
    /// old one and starts its bookkeeping afresh (upsert, https://www.sqlite.org/lang_upsert.html, the same
    /// syntax on PostgreSQL): it is another grant, not yet revoked nor probed.
    func saveAppleToken(_ token: NewAppleToken) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchCount(
                """
                INSERT INTO apple_tokens (app, sub, client_id, sealed_refresh_token, linked_via, linked_at_ms)
                SELECT $1, $2, $3, $4, $5, $6 FROM accounts WHERE app = $1 AND sub = $2
                ON CONFLICT (app, sub) DO UPDATE SET
                    client_id = excluded.client_id,
                    sealed_refresh_token = excluded.sealed_refresh_token,
                    linked_via = excluded.linked_via,
                    linked_at_ms = excluded.linked_at_ms,
                    dropped_at_ms = NULL,
                    revoked_at_ms = NULL,
                    last_probe_at_ms = NULL,
                    probe_not_before_ms = NULL
                RETURNING 1
                """,
                [
                    token.app, token.subject, token.clientID, token.sealedRefreshToken, token.source.rawValue,
                    token.linkedAt.millisecondsSinceEpoch,
                ]) > 0
        }
    }

    func dropAppleToken(app: String, subject: String, at instant: Instant) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchCount(
                """
                UPDATE apple_tokens SET sealed_refresh_token = NULL, dropped_at_ms = $3
                WHERE app = $1 AND sub = $2 AND sealed_refresh_token IS NOT NULL
                RETURNING 1
                """, [app, subject, instant.millisecondsSinceEpoch]) > 0
        }
    }
}
