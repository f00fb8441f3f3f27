import LifecycleCore

/// An `apple_tokens` row, as both stores select and decode it.
enum AppleTokenRow {
    static let columns =
        "app, sub, client_id, sealed_refresh_token, linked_via, linked_at_ms, dropped_at_ms, revoked_at_ms, "
        + "last_probe_at_ms"

    static func decode<Row: StoreRow>(_ row: Row, from first: Int = 0) throws(Row.Failure) -> StoredAppleToken {
        guard let source = AppleTokenSource(rawValue: row.text(first + 4)) else {
            throw Row.unreadable("apple_tokens", "linked_via")
        }
        return StoredAppleToken(
            app: row.text(first), subject: row.text(first + 1), clientID: row.text(first + 2),
            sealedRefreshToken: row.optionalBytes(first + 3), source: source, linkedAt: row.instant(first + 5),
            droppedAt: row.optionalInstant(first + 6), revokedAt: row.optionalInstant(first + 7),
            lastProbeAt: row.optionalInstant(first + 8))
    }
}
