import LifecycleCore
import LifecycleSQL

/// The daily probe's claims on `apple_tokens` (``AppleTokenProbeClaim``). The once-a-day rule is the `WHERE`
/// of a conditional `UPDATE` of the token's own row, run in the claimer's write transaction: SQLite's single
/// writer, or PostgreSQL's row locks (``SQLDialect/skipLocked(of:)`` on the candidates, then the `UPDATE`
/// re-testing the rule), so two instances never both claim one token in one window. Two statements rather
/// than one `UPDATE … FROM … RETURNING`, because SQLite's `RETURNING` may not name the `FROM` table, and the
/// previous probe time is what a release restores.
extension StoreAccess {
    func claimAppleTokenProbes(app: String, now: Instant, limit: Int) throws(StoreError) -> [AppleTokenProbeClaim] {
        guard limit > 0 else { return [] }
        let dueBefore = now.millisecondsSinceEpoch - AppleTokenProbeClaim.interval
        return try sql { () throws -> [AppleTokenProbeClaim] in
            // A token never probed is due a day after it was linked: the link itself was a validation (a code
            // exchange or a confirming grant), and link times spread the probes over the day. A deleted
            // account's token is the revocation worker's, whose own grant proves the revocation.
            let candidates = try connection.fetchAll(
                """
                SELECT t.sub, t.last_probe_at_ms FROM apple_tokens AS t
                WHERE t.app = $1 AND t.sealed_refresh_token IS NOT NULL AND t.revoked_at_ms IS NULL
                    AND coalesce(t.last_probe_at_ms, t.linked_at_ms) <= $2
                    AND (t.probe_not_before_ms IS NULL OR t.probe_not_before_ms <= $3)
                    AND NOT EXISTS (SELECT 1 FROM apple_revocations AS r WHERE r.app = t.app AND r.sub = t.sub)
                ORDER BY coalesce(t.last_probe_at_ms, t.linked_at_ms), t.sub
                LIMIT $4\(dialect.skipLocked(of: "t"))
                """, [app, dueBefore, now.millisecondsSinceEpoch, limit]
            ) { row in (row.text(0), row.optionalInstant(1)) }
            var claims: [AppleTokenProbeClaim] = []
            for (subject, previous) in candidates {
                let clientID = try connection.fetchOne(
                    """
                    UPDATE apple_tokens SET last_probe_at_ms = $3, probe_not_before_ms = NULL
                    WHERE app = $1 AND sub = $2 AND sealed_refresh_token IS NOT NULL AND revoked_at_ms IS NULL
                        AND coalesce(last_probe_at_ms, linked_at_ms) <= $4
                    RETURNING client_id
                    """, [app, subject, now.millisecondsSinceEpoch, dueBefore]
                ) { row in row.text(0) }
                guard let clientID else { continue }
                claims.append(
                    AppleTokenProbeClaim(
                        app: app, subject: subject, clientID: clientID, claimedAt: now, previousProbeAt: previous))
            }
            return claims
        }
    }

    func releaseAppleTokenProbe(_ claim: AppleTokenProbeClaim, retryAt: Instant?) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchCount(
                """
                UPDATE apple_tokens SET last_probe_at_ms = $3, probe_not_before_ms = $4
                WHERE app = $1 AND sub = $2 AND last_probe_at_ms = $5
                RETURNING 1
                """,
                [
                    claim.app, claim.subject, claim.previousProbeAt?.millisecondsSinceEpoch,
                    retryAt?.millisecondsSinceEpoch, claim.claimedAt.millisecondsSinceEpoch,
                ]) > 0
        }
    }
}
