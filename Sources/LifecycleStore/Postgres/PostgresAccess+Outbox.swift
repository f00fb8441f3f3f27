import LifecycleCore
import LifecycleSQL

/// The transactional outbox (DESIGN.md §6) on PostgreSQL.
///
/// Why claims cannot collide across instances: a claim picks its rows with `SELECT ... FOR UPDATE SKIP
/// LOCKED` (https://www.postgresql.org/docs/15/sql-select.html#SQL-FOR-UPDATE-SHARE) and leases them in the
/// same statement. A row another claim is leasing right now is locked, so it is skipped rather than waited
/// for; a row whose lease committed after this statement's snapshot is re-checked against the newest
/// version when locked (READ COMMITTED, https://www.postgresql.org/docs/15/transaction-iso.html §13.2.1),
/// and its live lease excludes it. The per-account order is the same `NOT EXISTS` rule as on SQLite: an
/// older message that is pending, leased or not, blocks the newer ones.
extension PostgresAccess {
    /// The same columns named through the table, for statements that join another relation with an `id`.
    private static let qualifiedOutboxColumns = """
        outbox.id, outbox.app, outbox.sub, outbox.kind, outbox.payload, outbox.status, outbox.attempts,
        outbox.created_at_ms, outbox.available_at_ms, outbox.lease_owner, outbox.leased_until_ms,
        outbox.last_attempt_at_ms, outbox.last_error, outbox.last_status_code, outbox.delivered_at_ms,
        outbox.message_id
        """

    private static func decodeAll(_ rows: [PostgresRow]) throws(PostgresError) -> [OutboxMessage] {
        var messages: [OutboxMessage] = []
        messages.reserveCapacity(rows.count)
        for row in rows { messages.append(try OutboxRow.decode(row)) }
        return messages
    }

    /// "No older message of this account is still pending", answered from `outbox_pending_account`.
    private static let firstInLine = """
        NOT EXISTS (
            SELECT 1 FROM outbox AS earlier
            WHERE earlier.status = 'pending' AND earlier.app = o.app AND earlier.sub = o.sub AND earlier.id < o.id)
        """

    func enqueueOutbox(_ message: NewOutboxMessage) throws(StoreError) -> Int64 {
        try postgres { () throws -> Int64 in
            let id = try connection.queryInt64(
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
            guard let id else { throw PostgresError(message: "outbox insert returned no id") }
            return id
        }
    }

    /// The candidates are picked in a `MATERIALIZED` CTE so the locking `SELECT` with its `LIMIT` runs once
    /// (a sub-select under `IN` may be re-evaluated by the planner and lock more rows than it returns).
    func claimOutbox(
        now: Instant, owner: String, leaseUntil: Instant, limit: Int
    ) throws(StoreError) -> [OutboxMessage] {
        guard limit > 0 else { return [] }
        return try postgres { () throws -> [OutboxMessage] in
            let claimed = try Self.decodeAll(
                connection.query(
                    """
                    WITH picked AS MATERIALIZED (
                        SELECT o.id FROM outbox AS o
                        WHERE o.status = 'pending' AND o.available_at_ms <= $3
                            AND (o.leased_until_ms IS NULL OR o.leased_until_ms <= $3)
                            AND \(Self.firstInLine)
                        ORDER BY o.available_at_ms, o.id
                        LIMIT $4
                        FOR UPDATE OF o SKIP LOCKED)
                    UPDATE outbox SET lease_owner = $1, leased_until_ms = $2, attempts = attempts + 1
                    FROM picked WHERE outbox.id = picked.id
                    RETURNING \(Self.qualifiedOutboxColumns)
                    """,
                    [owner, leaseUntil.millisecondsSinceEpoch, now.millisecondsSinceEpoch, limit]))
            // RETURNING yields rows in no promised order.
            return claimed.sorted { ($0.availableAt, $0.id) < ($1.availableAt, $1.id) }
        }
    }

    /// `lease_owner` is kept on the delivered row as a record of which runner delivered it.
    func completeOutbox(id: Int64, owner: String, at instant: Instant, statusCode: Int?) throws(StoreError) -> Bool {
        try postgres {
            try !connection.query(
                """
                UPDATE outbox SET status = 'delivered', delivered_at_ms = $1, last_attempt_at_ms = $1,
                    last_status_code = $2, leased_until_ms = NULL
                WHERE id = $3 AND status = 'pending' AND lease_owner = $4
                RETURNING 1
                """, [instant.millisecondsSinceEpoch, statusCode, id, owner]
            ).isEmpty
        }
    }

    func failOutbox(
        id: Int64, owner: String, error: String, statusCode: Int?, nextAttemptAt: Instant?, at instant: Instant
    ) throws(StoreError) -> Bool {
        try postgres { () throws -> Bool in
            if let nextAttemptAt {
                return try !connection.query(
                    """
                    UPDATE outbox SET available_at_ms = $1, lease_owner = NULL, leased_until_ms = NULL,
                        last_attempt_at_ms = $2, last_error = $3, last_status_code = $4
                    WHERE id = $5 AND status = 'pending' AND lease_owner = $6
                    RETURNING 1
                    """,
                    [
                        nextAttemptAt.millisecondsSinceEpoch, instant.millisecondsSinceEpoch, error, statusCode, id,
                        owner,
                    ]
                ).isEmpty
            }
            return try !connection.query(
                """
                UPDATE outbox SET status = 'dead', leased_until_ms = NULL, last_attempt_at_ms = $1, last_error = $2,
                    last_status_code = $3
                WHERE id = $4 AND status = 'pending' AND lease_owner = $5
                RETURNING 1
                """, [instant.millisecondsSinceEpoch, error, statusCode, id, owner]
            ).isEmpty
        }
    }

    func retryOutbox(id: Int64, now: Instant) throws(StoreError) -> Bool {
        try postgres {
            try !connection.query(
                """
                UPDATE outbox SET status = 'pending', attempts = 0, available_at_ms = $1, lease_owner = NULL,
                    leased_until_ms = NULL
                WHERE id = $2 AND status = 'dead'
                RETURNING 1
                """, [now.millisecondsSinceEpoch, id]
            ).isEmpty
        }
    }

    func outbox(status: OutboxStatus?, limit: Int, afterID: Int64?) throws(StoreError) -> [OutboxMessage] {
        try postgres { () throws -> [OutboxMessage] in
            let after = afterID ?? Int64.min
            let rows =
                if let status {
                    try connection.query(
                        "SELECT \(OutboxRow.columns) FROM outbox WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3",
                        [status.rawValue, after, max(0, limit)])
                } else {
                    try connection.query(
                        "SELECT \(OutboxRow.columns) FROM outbox WHERE id > $1 ORDER BY id LIMIT $2",
                        [after, max(0, limit)])
                }
            return try Self.decodeAll(rows)
        }
    }

    func outboxMessage(id: Int64) throws(StoreError) -> OutboxMessage? {
        try postgres {
            try Self.decodeAll(
                connection.query("SELECT \(OutboxRow.columns) FROM outbox WHERE id = $1", [id])
            ).first
        }
    }

    func outboxCounts() throws(StoreError) -> [OutboxStatus: Int] {
        try postgres { () throws -> [OutboxStatus: Int] in
            var counts = Dictionary(uniqueKeysWithValues: OutboxStatus.allCases.map { ($0, 0) })
            for row in try connection.query("SELECT status, count(*) FROM outbox GROUP BY status") {
                guard let status = OutboxStatus(rawValue: row.text(0)) else {
                    throw PostgresError.unreadable("outbox", "status")
                }
                counts[status] = row.int(1)
            }
            return counts
        }
    }

    func nextOutboxDue() throws(StoreError) -> Instant? {
        try postgres {
            try connection.queryInt64(
                """
                SELECT min(greatest(o.available_at_ms, coalesce(o.leased_until_ms, o.available_at_ms)))
                FROM outbox AS o
                WHERE o.status = 'pending' AND \(Self.firstInLine)
                """
            ).map(Instant.init(millisecondsSinceEpoch:))
        }
    }
}
