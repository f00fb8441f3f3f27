/// The stable codes of reconciler findings (DESIGN.md §8). The raw values appear in reports, metrics and
/// scripts: never rename one.
public enum FindingCode: String, Hashable, Sendable, CaseIterable {
    /// The app still holds a deleted `sub` past its erasure deadline.
    case retainedAfterDeletion = "retained-after-deletion"
    /// An erasure deadline passed and the erasure is not completed.
    case erasureOverdue = "erasure-overdue"
    /// An erasure job failed after its retries.
    case erasureFailed = "erasure-failed"
    /// An erasure ran but nothing proves it (DOMAIN.md §6).
    case unverifiedErasure = "unverified-erasure"
    /// The app reports live sessions for a revoked or deleted `sub`.
    case sessionAfterRevocation = "session-after-revocation"
    /// The app holds a `sub` the service never saw: it is registered as linked.
    case unknownToService = "unknown-to-service"
    /// The service has events for a `sub` the app does not hold, and it is not deleted.
    case orphanNotification = "orphan-notification"
    /// A window in which no instance of the service was receiving (from its heartbeats): notifications sent
    /// then may be lost (DOMAIN.md §3).
    case notificationGap = "notification-gap"
    /// Apple's refresh-token probe says the credentials are invalid (a revocation that never arrived).
    case credentialsInvalid = "credentials-invalid"
    /// An in-app deletion's Apple token revocation was accepted by `/auth/revoke` but never proved: the token
    /// still obtained tokens afterwards (Apple, "Revoke tokens"). The user should revoke in Settings (TN3194).
    case revocationUnverified = "revocation-unverified"
    /// A Shared Signals transmitter reported (RISC `identifier-recycled`) that an identifier it named now
    /// belongs to another person: whatever the app holds under it must not be merged with the new holder.
    case identifierRecycled = "identifier-recycled"
    /// An input of the merge was not sorted by `sub`: the comparison stopped, its result would be wrong.
    case unsortedInput = "unsorted-input"

    public init?(canonicalName: String) { self.init(rawValue: canonicalName) }

    public var canonicalName: String { rawValue }

    /// The severity every finding with this code carries.
    public var severity: FindingSeverity {
        switch self {
        case .retainedAfterDeletion, .erasureOverdue, .erasureFailed, .sessionAfterRevocation, .unsortedInput,
            .identifierRecycled:
            .critical
        case .unverifiedErasure, .orphanNotification, .notificationGap, .credentialsInvalid, .revocationUnverified:
            .warning
        case .unknownToService: .info
        }
    }
}
