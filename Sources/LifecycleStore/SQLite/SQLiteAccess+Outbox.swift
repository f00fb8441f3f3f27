import LifecycleCore
import LifecycleSQL

/// The transactional outbox (DESIGN.md §6) on SQLite.
///
/// Why claims cannot collide: a claim is one `UPDATE ... RETURNING` inside the writer's `BEGIN IMMEDIATE`
/// transaction, which holds the database's single write lock from its first statement; a second process
/// waits for that lock (`busy_timeout`) and then sees the first one's leases. The lease test is part of the
/// `UPDATE`'s own `WHERE`, so no other statement runs between checking a message and leasing it. A
/// PostgreSQL store gets the same guarantee with `SELECT ... FOR UPDATE SKIP LOCKED` on the same predicate.
extension SQLiteAccess {
    /// "No older message of this account is still pending": the per-account order of delivery. Answered
    /// from the partial index `outbox_pending_account` (app, sub, id) WHERE status = 'pending'. Without
    /// statistics the planner prefers `outbox_status (status, id)` and walks every older pending message, so
    /// `INDEXED BY` pins the index (https://www.sqlite.org/lang_indexedby.html); SQLite refuses the statement
    /// rather than scan if the index ever stops fitting.
    private static let firstInLine = """
        NOT EXISTS (
            SELECT 1 FROM outbox AS earlier INDEXED BY outbox_pending_account
            WHERE earlier.status = 'pending' AND earlier.app = o.app AND earlier.sub = o.sub AND earlier.id < o.id)
        """

    func enqueueOutbox(_ message: NewOutboxMessage) throws(StoreError) -> Int64 {
        try sqlite { () throws -> Int64 in
            let id = try connection.queryInt64(
                """
                INSERT INTO outbox (
                    app, sub, kind, payload, message_id, status, attempts, created_at_ms, available_at_ms)
                VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)
                RETURNING id
                """,
                [
                    message.app, message.subject, message.kind, message.payload, message.messageID,
                    message.createdAt.millisecondsSinceEpoch, message.availableAt.millisecondsSinceEpoch,
                ])
            guard let id else { throw SQLiteError(code: 1, message: "outbox insert returned no id") }
            return id
        }
    }

    func claimOutbox(
        now: Instant, owner: String, leaseUntil: Instant, limit: Int
    ) throws(StoreError) -> [OutboxMessage] {
        guard limit > 0 else { return [] }
        return try sqlite { () throws -> [OutboxMessage] in
            var claimed: [OutboxMessage] = []
            try connection.forEachRow(
                """
                UPDATE outbox SET lease_owner = ?1, leased_until_ms = ?2, attempts = attempts + 1
                WHERE id IN (
                    SELECT o.id FROM outbox AS o INDEXED BY outbox_pending_due
                    WHERE o.status = 'pending' AND o.available_at_ms <= ?3
                        AND (o.leased_until_ms IS NULL OR o.leased_until_ms <= ?3)
                        AND \(Self.firstInLine)
                    ORDER BY o.available_at_ms, o.id
                    LIMIT ?4)
                RETURNING \(OutboxRow.columns)
                """,
                [owner, leaseUntil.millisecondsSinceEpoch, now.millisecondsSinceEpoch, limit]
            ) { row throws(SQLiteError) in
                claimed.append(try OutboxRow.decode(row))
            }
            // RETURNING yields rows in no promised order (https://www.sqlite.org/lang_returning.html §2.2).
            return claimed.sorted { ($0.availableAt, $0.id) < ($1.availableAt, $1.id) }
        }
    }

    /// `lease_owner` is kept on the delivered row as a record of which runner delivered it.
    func completeOutbox(id: Int64, owner: String, at instant: Instant, statusCode: Int?) throws(StoreError) -> Bool {
        try sqlite {
            try connection.queryInt64(
                """
                UPDATE outbox SET status = 'delivered', delivered_at_ms = ?1, last_attempt_at_ms = ?1,
                    last_status_code = ?2, leased_until_ms = NULL
                WHERE id = ?3 AND status = 'pending' AND lease_owner = ?4
                RETURNING 1
                """, [instant.millisecondsSinceEpoch, statusCode, id, owner]) != nil
        }
    }

    /// A dead message keeps `lease_owner` (the runner that gave up); a message sent back to `pending` loses
    /// it, so the runner cannot complete it any more once another may claim it.
    func failOutbox(
        id: Int64, owner: String, error: String, statusCode: Int?, nextAttemptAt: Instant?, at instant: Instant
    ) throws(StoreError) -> Bool {
        try sqlite { () throws -> Bool in
            if let nextAttemptAt {
                return try connection.queryInt64(
                    """
                    UPDATE outbox SET available_at_ms = ?1, lease_owner = NULL, leased_until_ms = NULL,
                        last_attempt_at_ms = ?2, last_error = ?3, last_status_code = ?4
                    WHERE id = ?5 AND status = 'pending' AND lease_owner = ?6
                    RETURNING 1
                    """,
                    [
                        nextAttemptAt.millisecondsSinceEpoch, instant.millisecondsSinceEpoch, error, statusCode, id,
                        owner,
                    ]) != nil
            }
            return try connection.queryInt64(
                """
                UPDATE outbox SET status = 'dead', leased_until_ms = NULL, last_attempt_at_ms = ?1, last_error = ?2,
                    last_status_code = ?3
                WHERE id = ?4 AND status = 'pending' AND lease_owner = ?5
                RETURNING 1
                """, [instant.millisecondsSinceEpoch, error, statusCode, id, owner]) != nil
        }
    }

    func retryOutbox(id: Int64, now: Instant) throws(StoreError) -> Bool {
        try sqlite {
            try connection.queryInt64(
                """
                UPDATE outbox SET status = 'pending', attempts = 0, available_at_ms = ?1, lease_owner = NULL,
                    leased_until_ms = NULL
                WHERE id = ?2 AND status = 'dead'
                RETURNING 1
                """, [now.millisecondsSinceEpoch, id]) != nil
        }
    }

    func outbox(status: OutboxStatus?, limit: Int, afterID: Int64?) throws(StoreError) -> [OutboxMessage] {
        try sqlite { () throws -> [OutboxMessage] in
            var rows: [OutboxMessage] = []
            let after = afterID ?? Int64.min
            let decode = { (row: SQLiteStatement) throws(SQLiteError) in rows.append(try OutboxRow.decode(row)) }
            if let status {
                try connection.forEachRow(
                    "SELECT \(OutboxRow.columns) FROM outbox WHERE status = ? AND id > ? ORDER BY id LIMIT ?",
                    [status.rawValue, after, max(0, limit)], decode)
            } else {
                try connection.forEachRow(
                    "SELECT \(OutboxRow.columns) FROM outbox WHERE id > ? ORDER BY id LIMIT ?",
                    [after, max(0, limit)], decode)
            }
            return rows
        }
    }

    func outboxMessage(id: Int64) throws(StoreError) -> OutboxMessage? {
        try sqlite {
            try connection.firstRow("SELECT \(OutboxRow.columns) FROM outbox WHERE id = ?", [id]) {
                row throws(SQLiteError) in try OutboxRow.decode(row)
            }
        }
    }

    func outboxCounts() throws(StoreError) -> [OutboxStatus: Int] {
        try sqlite { () throws -> [OutboxStatus: Int] in
            var counts = Dictionary(uniqueKeysWithValues: OutboxStatus.allCases.map { ($0, 0) })
            try connection.forEachRow("SELECT status, count(*) FROM outbox GROUP BY status") {
                row throws(SQLiteError) in
                guard let status = OutboxStatus(rawValue: row.text(0)) else { throw .unreadable("outbox", "status") }
                counts[status] = row.int(1)
            }
            return counts
        }
    }

    func nextOutboxDue() throws(StoreError) -> Instant? {
        try sqlite {
            try connection.queryInt64(
                """
                SELECT min(max(o.available_at_ms, coalesce(o.leased_until_ms, o.available_at_ms)))
                FROM outbox AS o INDEXED BY outbox_pending_due
                WHERE o.status = 'pending' AND \(Self.firstInLine)
                """
            ).map(Instant.init(millisecondsSinceEpoch:))
        }
    }
}
