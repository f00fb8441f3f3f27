import LifecycleCore

/// The columns of ``AccountRecord`` in `accounts`, as both stores select and decode them.
enum AccountRow {
    static let columns = """
        state, last_applied_event_time_ms, email_forwarding, email_forwarding_event_time_ms,
        email_forwarding_input, access_event_time_ms, access_input, created_at_ms, updated_at_ms, deleted_at_ms,
        deleted_by
        """

    /// Decodes ``columns`` starting at column `first` (a select may put `sub` before them).
    static func decode<Row: StoreRow>(_ row: Row, from first: Int) throws(Row.Failure) -> AccountRecord {
        func kind(_ offset: Int, _ column: String) throws(Row.Failure) -> AccountInputKind? {
            guard let name = row.optionalText(first + offset) else { return nil }
            guard let kind = AccountInputKind(canonicalName: name) else { throw Row.unreadable("accounts", column) }
            return kind
        }
        guard let state = AccountState(canonicalName: row.text(first)) else {
            throw Row.unreadable("accounts", "state")
        }
        return AccountRecord(
            state: state, lastAppliedEventTime: row.instant(first + 1), emailForwarding: row.bool(first + 2),
            emailForwardingEventTime: row.optionalInstant(first + 3),
            emailForwardingInput: try kind(4, "email_forwarding_input"),
            accessEventTime: row.optionalInstant(first + 5),
            accessInput: try kind(6, "access_input"), createdAt: row.instant(first + 7),
            updatedAt: row.instant(first + 8), deletedAt: row.optionalInstant(first + 9),
            deletedBy: try kind(10, "deleted_by"))
    }
}
