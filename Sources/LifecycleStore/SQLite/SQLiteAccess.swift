import LifecycleCore
import LifecycleSQL

/// The store's queries over one SQLite connection: what a `read` or `write` body receives. It lives only on
/// the owner thread of its connection, for the duration of one body.
final class SQLiteAccess: StoreAccess {
    /// Internal so tests can check connection settings from inside a body.
    let connection: SQLiteConnection

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Every SQLite failure reaches callers as ``StoreError``: they never see SQL types.
    func sqlite<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(converting: error)
        }
    }

    // MARK: Inbox

    func notification(jti: String) throws(StoreError) -> StoredNotification? {
        try sqlite {
            try connection.firstRow(
                "SELECT \(NotificationRow.columns) FROM notifications WHERE jti = ?", [jti],
                NotificationRow.decode)
        }
    }

    func notification(id: Int64) throws(StoreError) -> StoredNotification? {
        try sqlite {
            try connection.firstRow(
                "SELECT \(NotificationRow.columns) FROM notifications WHERE id = ?", [id],
                NotificationRow.decode)
        }
    }

    func notificationCount() throws(StoreError) -> Int {
        try sqlite { Int(try connection.queryInt64("SELECT count(*) FROM notifications") ?? 0) }
    }

    /// Race-free by construction: the unique constraints decide, not a prior read. `ON CONFLICT DO NOTHING`
    /// (https://www.sqlite.org/lang_upsert.html) turns either collision into "no row", and only then is the
    /// colliding row looked up, inside the same transaction, so it is guaranteed to exist.
    func insertNotification(_ new: NewNotification) throws(StoreError) -> InboxInsertion {
        let verified = new.notification
        let event = verified.event
        let type = event.type.canonicalName
        return try sqlite { () throws -> InboxInsertion in
            let insertedID = try connection.queryInt64(
                """
                INSERT INTO notifications (
                    app, jti, audience, issuer, sub, type, event_time_ms, is_private_email, sealed_email, issued_at_ms,
                    expires_at_ms, key_id, accepted_expired, received_at_ms, body_sha256, sealed_raw_jws, source
                ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
            if let existing = try connection.queryInt64("SELECT id FROM notifications WHERE jti = ?", [verified.jti]) {
                return .duplicateJTI(existingID: existing)
            }
            if let existing = try connection.queryInt64(
                "SELECT id FROM notifications WHERE app = ? AND sub = ? AND type = ? AND event_time_ms = ?",
                [new.app, event.subject, type, event.eventTime.millisecondsSinceEpoch])
            {
                return .duplicateEvent(existingID: existing)
            }
            throw SQLiteError.constraintViolation("notification was neither inserted nor found under its unique keys")
        }
    }

    // MARK: Rejections

    func insertRejection(_ rejection: NewRejection) throws(StoreError) {
        try sqlite {
            try connection.execute(
                """
                INSERT INTO rejections (reason, received_at_ms, body_size, body_sha256, audience, source)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    rejection.reason.rawValue, rejection.receivedAt.millisecondsSinceEpoch, rejection.bodySize,
                    rejection.bodySHA256, rejection.audience, rejection.source,
                ])
        }
    }

    func rejectionCount() throws(StoreError) -> Int {
        try sqlite { Int(try connection.queryInt64("SELECT count(*) FROM rejections") ?? 0) }
    }

    func rejections(limit: Int) throws(StoreError) -> [StoredRejection] {
        try sqlite { () throws -> [StoredRejection] in
            var rows: [StoredRejection] = []
            try connection.forEachRow(
                """
                SELECT id, reason, received_at_ms, body_size, body_sha256, audience, source
                FROM rejections ORDER BY id DESC LIMIT ?
                """, [max(0, limit)]
            ) { row in
                // A reason this build does not know (written by a newer one) reads as the generic one.
                let reason = ReasonCode(rawValue: row.text(1)) ?? .malformedBody
                let rejection = NewRejection(
                    reason: reason, receivedAt: Instant(millisecondsSinceEpoch: row.int64(2)),
                    bodySize: row.int(3), bodySHA256: row.text(4), audience: row.optionalText(5),
                    source: row.text(6))
                rows.append(StoredRejection(id: row.int64(0), rejection: rejection))
            }
            return rows
        }
    }

    // MARK: Heartbeats

    func recordHeartbeat(instance: String, at instant: Instant) throws(StoreError) {
        try sqlite {
            try connection.execute(
                "INSERT INTO heartbeats (instance, at_ms) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [instance, instant.millisecondsSinceEpoch])
        }
    }

    func heartbeats(from start: Instant, to end: Instant) throws(StoreError) -> [Heartbeat] {
        try sqlite { () throws -> [Heartbeat] in
            var rows: [Heartbeat] = []
            try connection.forEachRow(
                "SELECT instance, at_ms FROM heartbeats WHERE at_ms >= ? AND at_ms < ? ORDER BY at_ms, instance",
                [start.millisecondsSinceEpoch, end.millisecondsSinceEpoch]
            ) { row in
                rows.append(Heartbeat(instance: row.text(0), at: Instant(millisecondsSinceEpoch: row.int64(1))))
            }
            return rows
        }
    }
}
