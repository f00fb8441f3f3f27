/// Something the caller must do because an input was applied. The machine only names it; the store writes
/// it to the outbox or the job table in the same transaction as the new state (DESIGN.md §6).
public enum AccountEffect: Hashable, Sendable {
    /// End every session of this `sub` now (`account.sessions.terminate`): consent revoked means the
    /// credentials are invalid, not stale (DOMAIN.md §2).
    case terminateSessions
    /// Delete the Apple access/refresh tokens the service stores, without calling Apple.
    case dropAppleTokens
    /// Revoke the stored tokens at Apple (`/auth/revoke`) and then drop them. Apple requires this when the
    /// user deletes the account inside the app; after `account-deleted` Apple has already invalidated them.
    case revokeAppleTokens
    /// Tell the app relay forwarding changed (`account.email_forwarding.changed`).
    case emailForwardingChanged(enabled: Bool)
    /// Schedule the erasure rules of the app's policy for this trigger, deadlines from the input's event time.
    case schedulePolicy(trigger: PolicyTrigger)
    /// Cancel the pending jobs whose rule says `cancelIfRelinked` (the user signed in again).
    case cancelRelinkCancellableJobs

    /// A stable name for the outbox and logs (the trigger or flag is carried separately).
    public var canonicalName: String {
        switch self {
        case .terminateSessions: "terminate-sessions"
        case .dropAppleTokens: "drop-apple-tokens"
        case .revokeAppleTokens: "revoke-apple-tokens"
        case .emailForwardingChanged: "email-forwarding-changed"
        case .schedulePolicy: "schedule-policy"
        case .cancelRelinkCancellableJobs: "cancel-relink-cancellable-jobs"
        }
    }
}
