import LifecycleCore
import LifecycleSQL

/// Security Event Tokens in the inbox, decided by the same unique keys as Apple's notifications
/// (``insertNotification(_:)``): a repeated `jti` of one provider, or the same (app, account, type,
/// event time) again, is a duplicate and changes nothing.
extension StoreAccess {
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
