import LifecycleCore
import LifecycleSQL

/// The transactional outbox (DESIGN.md §6).
///
/// Why claims cannot collide: a claim picks the due messages and leases them in one statement whose
/// `WHERE` holds the lease test, so no other statement runs between checking a message and leasing it. What
/// keeps two claimers apart is the database's own: SQLite's single write lock, PostgreSQL's row locks
/// (``SQLDialect/skipLocked(of:)``). The per-account order is the same `NOT EXISTS` rule on both: an older
/// message that is pending, leased or not, blocks the newer ones.
extension StoreAccess {
    /// "No older message of this account is still pending": the per-account order of delivery. Answered
    /// from the partial index `outbox_pending_account` (app, sub, id) WHERE status = 'pending'. Without
    /// statistics SQLite's planner prefers `outbox_status (status, id)` and walks every older pending message,
    /// so the index is pinned there (``SQLDialect/indexedBy(_:)``).
    private var firstInLine: String {
        """
        NOT EXISTS (
            SELECT 1 FROM outbox AS earlier\(dialect.indexedBy("outbox_pending_account"))
            WHERE earlier.status = 'pending' AND earlier.app = o.app AND earlier.sub = o.sub AND earlier.id < o.id)
        """
    }

    func enqueueOutbox(_ message: NewOutboxMessage) throws(StoreError) -> Int64 {
        try sql { () throws -> Int64 in
            let id = try connection.fetchInt64(
                """
                INSERT INTO outbox (
                    app, sub, kind, payload, message_id, status, attempts, created_at_ms, available_at_ms)
                VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7)
                RETURNING id
                """,
                [
                    message.app, message.subject, message.kind, message.payload, message.messageID,
                    message.createdAt.millisecondsSinceEpoch, message.availableAt.millisecondsSinceEpoch,
                ])
            guard let id else { throw Connection.failure("outbox insert returned no id") }
            return id
        }
    }

    /// The candidates are picked in a `MATERIALIZED` CTE so the `SELECT` with its `LIMIT` (and, on PostgreSQL,
    /// its row locks) runs once: a sub-select under `IN` may be re-evaluated by the planner and lock more rows
    /// than it returns.
    func claimOutbox(
        now: Instant, owner: String, leaseUntil: Instant, limit: Int
    ) throws(StoreError) -> [OutboxMessage] {
        guard limit > 0 else { return [] }
        return try sql { () throws -> [OutboxMessage] in
            let claimed = try walkingIndexOrder {
                try connection.fetchAll(
                    """
                    WITH picked AS MATERIALIZED (
                        SELECT o.id FROM outbox AS o\(dialect.indexedBy("outbox_pending_due"))
                        WHERE o.status = 'pending' AND o.available_at_ms <= $3
                            AND (o.leased_until_ms IS NULL OR o.leased_until_ms <= $3)
                            AND \(firstInLine)
                        ORDER BY o.available_at_ms, o.id
                        LIMIT $4\(dialect.skipLocked(of: "o")))
                    UPDATE outbox SET lease_owner = $1, leased_until_ms = $2, attempts = attempts + 1
                    FROM picked WHERE outbox.id = picked.id
                    RETURNING \(OutboxRow.qualifiedColumns)
                    """,
                    [owner, leaseUntil.millisecondsSinceEpoch, now.millisecondsSinceEpoch, limit]
                ) { row in try OutboxRow.decode(row) }
            }
            // RETURNING yields rows in no promised order (https://www.sqlite.org/lang_returning.html §2.2).
            return claimed.sorted { ($0.availableAt, $0.id) < ($1.availableAt, $1.id) }
        }
    }

    /// `lease_owner` is kept on the delivered row as a record of which runner delivered it.
    func completeOutbox(id: Int64, owner: String, at instant: Instant, statusCode: Int?) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchCount(
                """
                UPDATE outbox SET status = 'delivered', delivered_at_ms = $1, last_attempt_at_ms = $1,
                    last_status_code = $2, leased_until_ms = NULL
                WHERE id = $3 AND status = 'pending' AND lease_owner = $4
                RETURNING 1
                """, [instant.millisecondsSinceEpoch, statusCode, id, owner]) > 0
        }
    }

    /// A dead message keeps `lease_owner` (the runner that gave up); a message sent back to `pending` loses
    /// it, so the runner cannot complete it any more once another may claim it.
    func failOutbox(
        id: Int64, owner: String, error: String, statusCode: Int?, nextAttemptAt: Instant?, at instant: Instant
    ) throws(StoreError) -> Bool {
        try sql { () throws -> Bool in
            if let nextAttemptAt {
                return try connection.fetchCount(
                    """
                    UPDATE outbox SET available_at_ms = $1, lease_owner = NULL, leased_until_ms = NULL,
                        last_attempt_at_ms = $2, last_error = $3, last_status_code = $4
                    WHERE id = $5 AND status = 'pending' AND lease_owner = $6
                    RETURNING 1
                    """,
                    [
                        nextAttemptAt.millisecondsSinceEpoch, instant.millisecondsSinceEpoch, error, statusCode, id,
                        owner,
                    ]) > 0
            }
            return try connection.fetchCount(
                """
                UPDATE outbox SET status = 'dead', leased_until_ms = NULL, last_attempt_at_ms = $1, last_error = $2,
                    last_status_code = $3
                WHERE id = $4 AND status = 'pending' AND lease_owner = $5
                RETURNING 1
                """, [instant.millisecondsSinceEpoch, error, statusCode, id, owner]) > 0
        }
    }

    func retryOutbox(id: Int64, now: Instant) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchCount(
                """
                UPDATE outbox SET status = 'pending', attempts = 0, available_at_ms = $1, lease_owner = NULL,
                    leased_until_ms = NULL
                WHERE id = $2 AND status = 'dead'
                RETURNING 1
                """, [now.millisecondsSinceEpoch, id]) > 0
        }
    }

    func outbox(status: OutboxStatus?, limit: Int, afterID: Int64?) throws(StoreError) -> [OutboxMessage] {
        try sql { () throws -> [OutboxMessage] in
            let after = afterID ?? Int64.min
            if let status {
                return try connection.fetchAll(
                    "SELECT \(OutboxRow.columns) FROM outbox WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3",
                    [status.rawValue, after, max(0, limit)]
                ) { row in try OutboxRow.decode(row) }
            }
            return try connection.fetchAll(
                "SELECT \(OutboxRow.columns) FROM outbox WHERE id > $1 ORDER BY id LIMIT $2", [after, max(0, limit)]
            ) { row in try OutboxRow.decode(row) }
        }
    }

    func outboxMessage(id: Int64) throws(StoreError) -> OutboxMessage? {
        try sql {
            try connection.fetchOne("SELECT \(OutboxRow.columns) FROM outbox WHERE id = $1", [id]) { row in
                try OutboxRow.decode(row)
            }
        }
    }

    func outboxCounts() throws(StoreError) -> [OutboxStatus: Int] {
        try sql { () throws -> [OutboxStatus: Int] in
            var counts = Dictionary(uniqueKeysWithValues: OutboxStatus.allCases.map { ($0, 0) })
            try connection.fetchEach("SELECT status, count(*) FROM outbox GROUP BY status", []) { row in
                guard let status = OutboxStatus(rawValue: row.text(0)) else { throw Row.unreadable("outbox", "status") }
                counts[status] = row.int(1)
            }
            return counts
        }
    }

    func nextOutboxDue() throws(StoreError) -> Instant? {
        try sql {
            try connection.fetchInt64(
                """
                SELECT min(\(dialect.greatest("o.available_at_ms", "coalesce(o.leased_until_ms, o.available_at_ms)")))
                FROM outbox AS o\(dialect.indexedBy("outbox_pending_due"))
                WHERE o.status = 'pending' AND \(firstInLine)
                """
            ).map(Instant.init(millisecondsSinceEpoch:))
        }
    }
}
