import LifecycleCore
import LifecycleSQL

/// Security Event Tokens in the inbox, decided by the same unique keys as Apple's notifications
/// (``insertNotification(_:)``): a repeated `jti` of one provider, or the same (app, account, type,
/// event time) again, is a duplicate and changes nothing.
extension StoreAccess {
    /// The subjects and receipt times of the app's security events of type `uri` received in [from, to),
    /// oldest first, at most `limit`.
    func securityEvents(
        app: String, typeURI uri: String, from: Instant, to: Instant, limit: Int
    ) throws(StoreError) -> [(subject: String, receivedAt: Instant)] {
        try sql {
            try connection.fetchAll(
                """
                SELECT sub, received_at_ms FROM notifications
                WHERE app = $1 AND type = $2 AND received_at_ms >= $3 AND received_at_ms < $4
                ORDER BY received_at_ms, id LIMIT $5
                """,
                [app, uri, from.millisecondsSinceEpoch, to.millisecondsSinceEpoch, max(0, limit)]
            ) { row in (subject: row.text(0), receivedAt: Instant(millisecondsSinceEpoch: row.int64(1))) }
        }
    }

    /// The subjects and receipt times of the app's security events of type `uri` whose subject starts with
    /// `prefix`, newest first, at most `limit`.
    func latestSecurityEvents(
        app: String, typeURI uri: String, subjectPrefix prefix: String, limit: Int
    ) throws(StoreError) -> [(subject: String, receivedAt: Instant)] {
        try sql {
            try connection.fetchAll(
                """
                SELECT sub, received_at_ms FROM notifications
                WHERE app = $1 AND type = $2 AND substr(sub, 1, CAST($3 AS INTEGER)) = $4
                ORDER BY received_at_ms DESC, id DESC LIMIT $5
                """,
                [app, uri, prefix.unicodeScalars.count, prefix, max(0, limit)]
            ) { row in (subject: row.text(0), receivedAt: Instant(millisecondsSinceEpoch: row.int64(1))) }
        }
    }

    func insertSecurityEvent(_ new: NewSecurityEvent) throws(StoreError) -> InboxInsertion {
        try sql { () throws -> InboxInsertion in
            let insertedID = try connection.fetchInt64(
                """
                INSERT INTO notifications (
                    app, jti, audience, issuer, sub, type, event_time_ms, is_private_email, sealed_email, issued_at_ms,
                    expires_at_ms, key_id, accepted_expired, received_at_ms, body_sha256, sealed_raw_jws, source
                ) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, $8, $9, $10, $11, $12, $13, $14, $15)
                ON CONFLICT DO NOTHING
                RETURNING id
                """,
                [
                    new.app, new.inboxKey, new.audience, new.issuer, new.subject, new.eventTypeURI,
                    new.eventTime.millisecondsSinceEpoch, new.issuedAt.millisecondsSinceEpoch,
                    new.expiresAt?.millisecondsSinceEpoch, new.keyID, false, new.receivedAt.millisecondsSinceEpoch,
                    new.bodySHA256, new.sealedRawSET, new.source,
                ])
            if let insertedID { return .inserted(id: insertedID) }
            if let existing = try connection.fetchInt64(
                "SELECT id FROM notifications WHERE jti = $1", [new.inboxKey])
            {
                return .duplicateJTI(existingID: existing)
            }
            if let existing = try connection.fetchInt64(
                "SELECT id FROM notifications WHERE app = $1 AND sub = $2 AND type = $3 AND event_time_ms = $4",
                [new.app, new.subject, new.eventTypeURI, new.eventTime.millisecondsSinceEpoch])
            {
                return .duplicateEvent(existingID: existing)
            }
            throw Connection.constraintViolation("security event was neither inserted nor found under its unique keys")
        }
    }
}
