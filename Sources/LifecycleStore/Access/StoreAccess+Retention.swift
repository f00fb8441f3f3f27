import LifecycleCore

/// The retention purge (``StoreWriter/purgeExpired(_:before:limit:)``): one statement per kind, each taking
/// the oldest expired records first, at most `limit` of them, so one batch is one short write transaction and
/// ingestion is never held behind a large delete. The sub-select picks by the kind's age column (indexed for
/// the inbox — its rows still holding a payload — the rejections and heartbeats; by id order, which follows
/// receipt, for the history).
extension StoreAccess {
    func purgeExpired(_ kind: RetentionKind, before cutoff: Instant, limit: Int) throws(StoreError) -> Int {
        guard limit > 0 else { return 0 }
        let statement =
            switch kind {
            case .notificationPayloads:
                """
                UPDATE notifications SET raw_jws = NULL, email = NULL, sealed_raw_jws = NULL, sealed_email = NULL
                WHERE id IN (
                    SELECT id FROM notifications\(dialect.indexedBy("notifications_payload_held"))
                    WHERE received_at_ms < $1 AND \(StoreSchema.payloadHeld)
                    ORDER BY received_at_ms LIMIT $2)
                RETURNING 1
                """
            case .rejections:
                """
                DELETE FROM rejections WHERE id IN (
                    SELECT id FROM rejections WHERE received_at_ms < $1 ORDER BY received_at_ms LIMIT $2)
                RETURNING 1
                """
            case .outbox:
                """
                DELETE FROM outbox WHERE id IN (
                    SELECT id FROM outbox
                    WHERE status IN ('delivered', 'dead')
                        AND COALESCE(delivered_at_ms, last_attempt_at_ms, created_at_ms) < $1
                    ORDER BY id LIMIT $2)
                RETURNING 1
                """
            case .history:
                """
                DELETE FROM account_history WHERE id IN (
                    SELECT id FROM account_history WHERE received_at_ms < $1 ORDER BY id LIMIT $2)
                RETURNING 1
                """
            case .findings:
                """
                DELETE FROM findings WHERE id IN (
                    SELECT id FROM findings
                    WHERE resolved_at_ms IS NOT NULL AND resolved_at_ms < $1 ORDER BY id LIMIT $2)
                RETURNING 1
                """
            case .heartbeats:
                """
                DELETE FROM heartbeats WHERE (instance, at_ms) IN (
                    SELECT instance, at_ms FROM heartbeats WHERE at_ms < $1 ORDER BY at_ms LIMIT $2)
                RETURNING 1
                """
            }
        return try sql { try connection.fetchCount(statement, [cutoff.millisecondsSinceEpoch, limit]) }
    }
}
