import LifecycleCore
import LifecycleSQL

/// The inbox (verified notifications), rejections and heartbeats.
extension StoreAccess {
    func notification(jti: String) throws(StoreError) -> StoredNotification? {
        try sql {
            try connection.fetchOne(
                "SELECT \(NotificationRow.columns) FROM notifications WHERE jti = $1", [jti]
            ) { row in NotificationRow.decode(row) }
        }
    }

    func notification(id: Int64) throws(StoreError) -> StoredNotification? {
        try sql {
            try connection.fetchOne(
                "SELECT \(NotificationRow.columns) FROM notifications WHERE id = $1", [id]
            ) { row in NotificationRow.decode(row) }
        }
    }

    func notificationCount() throws(StoreError) -> Int {
        try sql { Int(try connection.fetchInt64("SELECT count(*) FROM notifications") ?? 0) }
    }

    /// The end of the `notifications_received_at` index.
    func latestNotificationReceivedAt() throws(StoreError) -> Instant? {
        try sql {
            try connection.fetchInt64(
                "SELECT received_at_ms FROM notifications ORDER BY received_at_ms DESC LIMIT 1"
            ).map { Instant(millisecondsSinceEpoch: $0) }
        }
    }

    func notificationTypeCounts(app: String, from: Instant, to: Instant) throws(StoreError) -> [String: Int] {
        try sql {
            var counts: [String: Int] = [:]
            for (type, count) in try connection.fetchAll(
                """
                SELECT type, count(*) FROM notifications
                WHERE app = $1 AND event_time_ms >= $2 AND event_time_ms < $3
                GROUP BY type ORDER BY type
                """, [app, from.millisecondsSinceEpoch, to.millisecondsSinceEpoch], { ($0.text(0), $0.int(1)) })
            {
                counts[type] = count
            }
            return counts
        }
    }

    /// Race-free by construction: the unique constraints decide, not a prior read. `ON CONFLICT DO NOTHING`
    /// without a conflict target covers both unique keys (https://www.sqlite.org/lang_upsert.html,
    /// https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT) and turns either collision into "no
    /// row"; only then is the colliding row looked up, inside the same transaction. On SQLite the single
    /// writer's lock makes the row certain to exist; on PostgreSQL a concurrent insert of the same key waits for
    /// the other transaction, and once that commits the lookups run with a fresh snapshot (READ COMMITTED), so
    /// they see the row that won.
    func insertNotification(_ new: NewNotification) throws(StoreError) -> InboxInsertion {
        let verified = new.notification
        let event = verified.event
        let type = event.type.canonicalName
        return try sql { () throws -> InboxInsertion in
            let insertedID = try connection.fetchInt64(
                """
                INSERT INTO notifications (
                    app, jti, audience, issuer, sub, type, event_time_ms, is_private_email, sealed_email, issued_at_ms,
                    expires_at_ms, key_id, accepted_expired, received_at_ms, body_sha256, sealed_raw_jws, source
                ) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
                ON CONFLICT DO NOTHING
                RETURNING id
                """,
                [
                    new.app, verified.jti, verified.audience, verified.issuer, event.subject, type,
                    event.eventTime.millisecondsSinceEpoch, event.isPrivateEmail, new.sealedEmail,
                    verified.issuedAt.millisecondsSinceEpoch, verified.expiresAt?.millisecondsSinceEpoch,
                    verified.keyID, verified.acceptedExpired, new.receivedAt.millisecondsSinceEpoch,
                    new.bodySHA256, new.sealedRawJWS, new.source,
                ])
            if let insertedID { return .inserted(id: insertedID) }
            if let existing = try connection.fetchInt64(
                "SELECT id FROM notifications WHERE jti = $1", [verified.jti])
            {
                return .duplicateJTI(existingID: existing)
            }
            if let existing = try connection.fetchInt64(
                "SELECT id FROM notifications WHERE app = $1 AND sub = $2 AND type = $3 AND event_time_ms = $4",
                [new.app, event.subject, type, event.eventTime.millisecondsSinceEpoch])
            {
                return .duplicateEvent(existingID: existing)
            }
            throw Connection.constraintViolation("notification was neither inserted nor found under its unique keys")
        }
    }

    // MARK: Rejections

    func insertRejection(_ rejection: NewRejection) throws(StoreError) {
        try sql {
            try connection.run(
                """
                INSERT INTO rejections (reason, received_at_ms, body_size, body_sha256, audience, source)
                VALUES ($1, $2, $3, $4, $5, $6)
                """,
                [
                    rejection.reason.rawValue, rejection.receivedAt.millisecondsSinceEpoch, rejection.bodySize,
                    rejection.bodySHA256, rejection.audience, rejection.source,
                ])
        }
    }

    func rejectionCount() throws(StoreError) -> Int {
        try sql { Int(try connection.fetchInt64("SELECT count(*) FROM rejections") ?? 0) }
    }

    func rejections(limit: Int) throws(StoreError) -> [StoredRejection] {
        try sql {
            try connection.fetchAll(
                """
                SELECT id, reason, received_at_ms, body_size, body_sha256, audience, source
                FROM rejections ORDER BY id DESC LIMIT $1
                """, [max(0, limit)]
            ) { row in
                // A reason this build does not know (written by a newer one) reads as the generic one.
                let reason = ReasonCode(rawValue: row.text(1)) ?? .malformedBody
                let rejection = NewRejection(
                    reason: reason, receivedAt: Instant(millisecondsSinceEpoch: row.int64(2)),
                    bodySize: row.int(3), bodySHA256: row.text(4), audience: row.optionalText(5),
                    source: row.text(6))
                return StoredRejection(id: row.int64(0), rejection: rejection)
            }
        }
    }

    // MARK: Heartbeats

    func recordHeartbeat(instance: String, at instant: Instant) throws(StoreError) {
        try sql {
            try connection.run(
                "INSERT INTO heartbeats (instance, at_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [instance, instant.millisecondsSinceEpoch])
        }
    }

    func firstHeartbeat() throws(StoreError) -> Instant? {
        try sql {
            try connection.fetchInt64("SELECT at_ms FROM heartbeats ORDER BY at_ms LIMIT 1").map {
                Instant(millisecondsSinceEpoch: $0)
            }
        }
    }

    func heartbeats(from start: Instant, to end: Instant) throws(StoreError) -> [Heartbeat] {
        try sql {
            try connection.fetchAll(
                "SELECT instance, at_ms FROM heartbeats WHERE at_ms >= $1 AND at_ms < $2 ORDER BY at_ms, instance",
                [start.millisecondsSinceEpoch, end.millisecondsSinceEpoch]
            ) { Heartbeat(instance: $0.text(0), at: Instant(millisecondsSinceEpoch: $0.int64(1))) }
        }
    }
}
