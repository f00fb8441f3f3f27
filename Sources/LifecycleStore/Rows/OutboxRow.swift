import LifecycleCore

/// One `outbox` row as both stores select and decode it.
enum OutboxRow {
    static let columns = """
        id, app, sub, kind, payload, status, attempts, created_at_ms, available_at_ms, lease_owner, leased_until_ms,
        last_attempt_at_ms, last_error, last_status_code, delivered_at_ms, message_id
        """

    /// The same columns named through the table, for an `UPDATE … FROM` whose other relation also has an `id`.
    static let qualifiedColumns = columns.split(separator: ",").map { "outbox." + $0.filter { !$0.isWhitespace } }
        .joined(separator: ", ")

    static func decode<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> OutboxMessage {
        guard let status = OutboxStatus(rawValue: row.text(5)) else { throw Row.unreadable("outbox", "status") }
        return OutboxMessage(
            id: row.int64(0), messageID: row.text(15), app: row.text(1), subject: row.text(2), kind: row.text(3),
            payload: row.text(4),
            status: status, attempts: row.int(6), createdAt: row.instant(7), availableAt: row.instant(8),
            leaseOwner: row.optionalText(9), leasedUntil: row.optionalInstant(10),
            lastAttemptAt: row.optionalInstant(11), lastError: row.optionalText(12),
            lastStatusCode: row.optionalInt(13), deliveredAt: row.optionalInstant(14))
    }
}
