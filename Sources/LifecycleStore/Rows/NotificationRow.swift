import LifecycleCore

/// The inbox row (`notifications`) as both stores select and decode it.
enum NotificationRow {
    /// Column 9 is the sealed e-mail: the clear-text `email` column only ever held values of an older
    /// release, sealed on upgrade.
    static let columns = """
        id, app, jti, audience, issuer, sub, type, event_time_ms, is_private_email, sealed_email, issued_at_ms,
        expires_at_ms, key_id, accepted_expired, received_at_ms, body_sha256, source, sealed_raw_jws
        """

    static func decode<Row: StoreRow>(_ row: Row) -> StoredNotification {
        let event = AppleEvent(
            type: AppleEventType(wireValue: row.text(6)), subject: row.text(5), eventTime: row.instant(7),
            isPrivateEmail: row.optionalBool(8), email: nil)
        let notification = VerifiedNotification(
            jti: row.text(2), audience: row.text(3), issuer: row.text(4), issuedAt: row.instant(10),
            expiresAt: row.optionalInstant(11), keyID: row.text(12), event: event, acceptedExpired: row.bool(13))
        return StoredNotification(
            id: row.int64(0), app: row.text(1), notification: notification, receivedAt: row.instant(14),
            bodySHA256: row.text(15), source: row.text(16), sealedEmail: row.optionalBytes(9),
            sealedRawJWS: row.optionalBytes(17))
    }
}
