import LifecycleCore

/// An `apple_revocations` row, as both stores select and decode it.
enum AppleRevocationRow {
    static let columns = """
        id, app, sub, status, attempts, revokes, requested_at_ms, available_at_ms, lease_owner, leased_until_ms,
        revoked_at_ms, verified_at_ms, finished_at_ms, last_error
        """

    /// The same columns named through the table, for an `UPDATE … FROM` whose other relation also has an `id`.
    static let qualifiedColumns = columns.split(separator: ",")
        .map { "apple_revocations." + $0.filter { !$0.isWhitespace } }
        .joined(separator: ", ")

    static func decode<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> StoredAppleRevocation {
        guard let status = AppleRevocationStatus(rawValue: row.text(3)) else {
            throw Row.unreadable("apple_revocations", "status")
        }
        return StoredAppleRevocation(
            id: row.int64(0), app: row.text(1), subject: row.text(2), status: status, attempts: row.int(4),
            revokes: row.int(5), requestedAt: row.instant(6), availableAt: row.instant(7),
            leaseOwner: row.optionalText(8), leasedUntil: row.optionalInstant(9), revokedAt: row.optionalInstant(10),
            verifiedAt: row.optionalInstant(11), finishedAt: row.optionalInstant(12), lastError: row.optionalText(13))
    }
}
