/// One account as the service sees it: its state, and a summary of its erasure jobs.
public struct ObservedAccount: Hashable, Sendable {
    /// The Apple `sub`.
    public var subject: String
    public var state: AccountState
    /// When it became `deleted`.
    public var deletedAt: Instant?
    /// The earliest deadline among its erasure jobs that are not cancelled.
    public var erasureDeadline: Instant?
    public var erasureStatus: ObservedErasureStatus
    /// When consent was revoked.
    public var revokedAt: Instant?
    /// The in-app deletion's Apple token revocation ended `unverified`: revoked, but the token kept working.
    public var appleRevocationUnverified = false
    /// When the daily probe found the account's Apple refresh token refused (`invalid_grant`) and nothing
    /// newer about its access arrived since: a consent-revoked or a deletion the service may never have been
    /// told about, for the app to confirm (`credentials-invalid` finding).
    public var credentialsInvalidAt: Instant?

    public init(
        subject: String, state: AccountState, deletedAt: Instant? = nil, erasureDeadline: Instant? = nil,
        erasureStatus: ObservedErasureStatus = .none, revokedAt: Instant? = nil
    ) {
        self.subject = subject
        self.state = state
        self.deletedAt = deletedAt
        self.erasureDeadline = erasureDeadline
        self.erasureStatus = erasureStatus
        self.revokedAt = revokedAt
    }
}

/// The summary of a subject's erasure jobs the reconciler compares: the worst of them, in the order
/// `failed`, `unverified`, `pending`, `completed` (cancelled jobs do not count).
public enum ObservedErasureStatus: String, Hashable, Sendable, CaseIterable {
    /// No erasure job.
    case none = "none"
    /// Scheduled or running.
    case pending = "pending"
    case completed = "completed"
    case failed = "failed"
    case unverified = "unverified"

    public init?(canonicalName: String) { self.init(rawValue: canonicalName) }

    public var canonicalName: String { rawValue }
}
