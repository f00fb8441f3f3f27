import LifecycleCore
import LifecycleSQL

/// The revocation queue (``StoreSchema/appleRevocations(_:)``). Claims follow the outbox's rule: the due rows
/// are picked and leased in one statement whose `WHERE` holds the lease test, SQLite's write lock or
/// PostgreSQL's row locks (``SQLDialect/skipLocked(of:)``) keeping two claimers apart.
extension StoreAccess {
    func enqueueAppleRevocation(app: String, subject: String, at instant: Instant) throws(StoreError)
        -> AppleRevocationStatus?
    {
        try sql { () throws -> AppleRevocationStatus? in
            let tokens = try connection.fetchInt64(
                "SELECT count(*) FROM apple_tokens WHERE app = $1 AND sub = $2 AND sealed_refresh_token IS NOT NULL",
                [app, subject])
            let held = (tokens ?? 0) > 0
            let status: AppleRevocationStatus = held ? .pending : .noToken
            let inserted = try connection.fetchCount(
                """
                INSERT INTO apple_revocations (app, sub, status, requested_at_ms, available_at_ms, finished_at_ms)
                VALUES ($1, $2, $3, $4, $4, $5)
                ON CONFLICT (app, sub) DO NOTHING
                RETURNING 1
                """,
                [
                    app, subject, status.rawValue, instant.millisecondsSinceEpoch,
                    held ? nil : instant.millisecondsSinceEpoch,
                ])
            return inserted > 0 ? status : nil
        }
    }

    func claimAppleRevocations(
        now: Instant, owner: String, leaseUntil: Instant, limit: Int
    ) throws(StoreError) -> [StoredAppleRevocation] {
        guard limit > 0 else { return [] }
        return try sql { () throws -> [StoredAppleRevocation] in
            let claimed = try connection.fetchAll(
                """
                WITH picked AS MATERIALIZED (
                    SELECT r.id FROM apple_revocations AS r
                    WHERE r.status = 'pending' AND r.available_at_ms <= $3
                        AND (r.leased_until_ms IS NULL OR r.leased_until_ms <= $3)
                    ORDER BY r.available_at_ms, r.id
                    LIMIT $4\(dialect.skipLocked(of: "r")))
                UPDATE apple_revocations SET lease_owner = $1, leased_until_ms = $2, attempts = attempts + 1
                FROM picked WHERE apple_revocations.id = picked.id
                RETURNING \(AppleRevocationRow.qualifiedColumns)
                """,
                [owner, leaseUntil.millisecondsSinceEpoch, now.millisecondsSinceEpoch, limit]
            ) { row in try AppleRevocationRow.decode(row) }
            return claimed.sorted { ($0.availableAt, $0.id) < ($1.availableAt, $1.id) }
        }
    }

    func retryAppleRevocation(
        id: Int64, owner: String, revokedAt: Instant?, error: String, nextAttemptAt: Instant
    ) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchCount(
                """
                UPDATE apple_revocations SET available_at_ms = $1, lease_owner = NULL, leased_until_ms = NULL,
                    revoked_at_ms = coalesce($2, revoked_at_ms),
                    revokes = revokes + CASE WHEN $2 IS NULL THEN 0 ELSE 1 END, last_error = $3
                WHERE id = $4 AND status = 'pending' AND lease_owner = $5
                RETURNING 1
                """,
                [nextAttemptAt.millisecondsSinceEpoch, revokedAt?.millisecondsSinceEpoch, error, id, owner]) > 0
        }
    }

    /// Also ends the token's life in the vault, in the same transaction: the sealed token is cleared, and when
    /// Apple was told to revoke, `apple_tokens.revoked_at_ms` says when (the vault then shows "revoked").
    func finishAppleRevocation(
        id: Int64, owner: String, status: AppleRevocationStatus, revokedAt: Instant?, verifiedAt: Instant?,
        error: String?, at instant: Instant
    ) throws(StoreError) -> Bool {
        try sql { () throws -> Bool in
            let row = try connection.fetchOne(
                """
                UPDATE apple_revocations SET status = $1, lease_owner = NULL, leased_until_ms = NULL,
                    revoked_at_ms = coalesce($2, revoked_at_ms),
                    revokes = revokes + CASE WHEN $2 IS NULL THEN 0 ELSE 1 END, verified_at_ms = $3,
                    finished_at_ms = $4, last_error = $5
                WHERE id = $6 AND status = 'pending' AND lease_owner = $7
                RETURNING app, sub, revoked_at_ms
                """,
                [
                    status.rawValue, revokedAt?.millisecondsSinceEpoch, verifiedAt?.millisecondsSinceEpoch,
                    instant.millisecondsSinceEpoch, error, id, owner,
                ]
            ) { row in (row.text(0), row.text(1), row.optionalInt64(2)) }
            guard let (app, subject, revoked) = row else { return false }
            if let revoked {
                _ = try connection.fetchCount(
                    """
                    UPDATE apple_tokens SET sealed_refresh_token = NULL, revoked_at_ms = $3, last_probe_at_ms = $4
                    WHERE app = $1 AND sub = $2
                    RETURNING 1
                    """, [app, subject, revoked, instant.millisecondsSinceEpoch])
            } else {
                _ = try connection.fetchCount(
                    """
                    UPDATE apple_tokens SET sealed_refresh_token = NULL, dropped_at_ms = $3
                    WHERE app = $1 AND sub = $2 AND sealed_refresh_token IS NOT NULL
                    RETURNING 1
                    """, [app, subject, instant.millisecondsSinceEpoch])
            }
            return true
        }
    }

    func appleRevocation(app: String, subject: String) throws(StoreError) -> StoredAppleRevocation? {
        try sql {
            try connection.fetchOne(
                "SELECT \(AppleRevocationRow.columns) FROM apple_revocations WHERE app = $1 AND sub = $2",
                [app, subject]
            ) { row in try AppleRevocationRow.decode(row) }
        }
    }

    func appleRevocationCounts() throws(StoreError) -> [AppleRevocationStatus: Int] {
        try sql { () throws -> [AppleRevocationStatus: Int] in
            var counts = Dictionary(uniqueKeysWithValues: AppleRevocationStatus.allCases.map { ($0, 0) })
            try connection.fetchEach("SELECT status, count(*) FROM apple_revocations GROUP BY status", []) { row in
                guard let status = AppleRevocationStatus(rawValue: row.text(0)) else {
                    throw Row.unreadable("apple_revocations", "status")
                }
                counts[status] = row.int(1)
            }
            return counts
        }
    }
}
