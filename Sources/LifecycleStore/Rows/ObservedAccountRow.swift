import LifecycleCore

/// One row of the observed-accounts page as both stores decode it (columns: sub, state, deleted_at_ms,
/// access_event_time_ms, access_input, earliest pending rule-job deadline, latest rule-job deadline, the
/// comma-joined statuses of the account's rule jobs, the status of its Apple token revocation).
enum ObservedAccountRow {
    static func decode<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> ObservedAccount {
        guard let state = AccountState(canonicalName: row.text(1)) else { throw Row.unreadable("accounts", "state") }
        let statuses = Set((row.optionalText(7) ?? "").split(separator: ",").map(String.init))
        let erasure: ObservedErasureStatus =
            if statuses.isEmpty { .none } else if statuses.contains("failed") {
                .failed
            } else if statuses.contains("scheduled") || statuses.contains("running") {
                .pending
            } else if statuses.contains("unverified") { .unverified } else { .completed }
        let deadline = erasure == .pending ? row.optionalInstant(5) : row.optionalInstant(6)
        let revoked =
            row.optionalText(4) == AccountInputKind.consentRevoked.rawValue
            || row.optionalText(4) == AccountInputKind.credentialsInvalid.rawValue
            || row.optionalText(4) == AccountInputKind.accessSuspended.rawValue
        var observed = ObservedAccount(
            subject: row.text(0), state: state, deletedAt: row.optionalInstant(2), erasureDeadline: deadline,
            erasureStatus: erasure, revokedAt: revoked ? row.optionalInstant(3) : nil)
        if state == .consentRevoked, row.optionalText(4) == AccountInputKind.credentialsInvalid.rawValue {
            observed.credentialsInvalidAt = row.optionalInstant(3)
        }
        observed.appleRevocationUnverified = row.optionalText(8) == AppleRevocationStatus.unverified.rawValue
        return observed
    }
}
