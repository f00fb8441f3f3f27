import LifecycleCore

/// The observed-accounts page as both stores decode it: one `accounts` row (columns: sub, state,
/// deleted_at_ms, access_event_time_ms, access_input) joined with the erasure facts and the Apple revocation
/// status read for the page's range of subjects (``StoreAccess/observedAccounts(app:afterSubject:limit:)``).
enum ObservedAccountRow {
    /// The account's columns, read before its facts are.
    struct Account {
        var subject: String
        var state: AccountState
        var deletedAt: Instant?
        var accessEventTime: Instant?
        var accessInput: String?

        static func decode<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> Account {
            guard let state = AccountState(canonicalName: row.text(1)) else {
                throw Row.unreadable("accounts", "state")
            }
            return Account(
                subject: row.text(0), state: state, deletedAt: row.optionalInstant(2),
                accessEventTime: row.optionalInstant(3), accessInput: row.optionalText(4))
        }
    }

    /// The account's rule jobs, aggregated (columns: sub, the earliest deadline of a scheduled or running job,
    /// the latest deadline, the comma-joined statuses; cancelled jobs left out).
    struct ErasureFacts {
        var pendingDeadline: Instant?
        var latestDeadline: Instant?
        var statuses: String?

        static func decode<Row: StoreRow>(_ row: Row) -> (subject: String, facts: ErasureFacts) {
            let facts = ErasureFacts(
                pendingDeadline: row.optionalInstant(1), latestDeadline: row.optionalInstant(2),
                statuses: row.optionalText(3))
            return (row.text(0), facts)
        }
    }

    static func observed(_ account: Account, erasure facts: ErasureFacts?, revocation: String?) -> ObservedAccount {
        let statuses = Set((facts?.statuses ?? "").split(separator: ",").map(String.init))
        let erasure: ObservedErasureStatus =
            if statuses.isEmpty { .none } else if statuses.contains("failed") {
                .failed
            } else if statuses.contains("scheduled") || statuses.contains("running") {
                .pending
            } else if statuses.contains("unverified") { .unverified } else { .completed }
        let deadline = erasure == .pending ? facts?.pendingDeadline : facts?.latestDeadline
        let input = account.accessInput
        let revoked =
            input == AccountInputKind.consentRevoked.rawValue
            || input == AccountInputKind.credentialsInvalid.rawValue
            || input == AccountInputKind.accessSuspended.rawValue
        var observed = ObservedAccount(
            subject: account.subject, state: account.state, deletedAt: account.deletedAt,
            erasureDeadline: deadline, erasureStatus: erasure, revokedAt: revoked ? account.accessEventTime : nil)
        if account.state == .consentRevoked, input == AccountInputKind.credentialsInvalid.rawValue {
            observed.credentialsInvalidAt = account.accessEventTime
        }
        observed.appleRevocationUnverified = revocation == AppleRevocationStatus.unverified.rawValue
        return observed
    }
}
