import LifecycleCore

/// Where the revocation of an account's Apple tokens stands (Apple, "Revoke tokens"). `pending` is the only
/// state a worker claims; the others are final and are what a deletion report shows.
public enum AppleRevocationStatus: String, Sendable, Hashable, CaseIterable {
    /// Queued by the deletion's transaction, or retrying after a failed attempt; under a lease while a worker
    /// calls Apple.
    case pending
    /// Apple answered `/auth/revoke`, and a `refresh_token` grant with the token then answered `invalid_grant`:
    /// the only proof there is, since `/auth/revoke` answers 200 even for a token it does not know.
    case verified
    /// Revoked, but the token still obtained tokens at every verification: Apple did not act on the revocation.
    case unverified
    /// The service held no token for the account when it was deleted: only the user can revoke, in Settings
    /// (Apple, TN3194).
    case noToken = "no-token"
    /// Every attempt failed (Apple unreachable, credentials refused): the revocation was given up.
    case failed
}

/// A `apple_revocations` row: one per deleted account whose deletion asked for revocation, with the attempt
/// bookkeeping of the worker (the same lease rule as the outbox: a live lease keeps other workers off).
public struct StoredAppleRevocation: Sendable, Hashable {
    public var id: Int64
    public var app: String
    public var subject: String
    public var status: AppleRevocationStatus
    /// Claims so far, each one attempt (revoke, then verify).
    public var attempts: Int
    /// How many times Apple accepted `/auth/revoke` for this account.
    public var revokes: Int
    /// When the deletion asked for it (the transition's commit).
    public var requestedAt: Instant
    /// The next attempt is not made before this instant.
    public var availableAt: Instant
    public var leaseOwner: String?
    public var leasedUntil: Instant?
    /// When Apple last accepted `/auth/revoke`.
    public var revokedAt: Instant?
    /// When the `refresh_token` grant answered `invalid_grant`.
    public var verifiedAt: Instant?
    public var finishedAt: Instant?
    /// The last failure as a stable code (never a token).
    public var lastError: String?

    public init(
        id: Int64, app: String, subject: String, status: AppleRevocationStatus, attempts: Int, revokes: Int,
        requestedAt: Instant, availableAt: Instant, leaseOwner: String?, leasedUntil: Instant?, revokedAt: Instant?,
        verifiedAt: Instant?, finishedAt: Instant?, lastError: String?
    ) {
        self.id = id
        self.app = app
        self.subject = subject
        self.status = status
        self.attempts = attempts
        self.revokes = revokes
        self.requestedAt = requestedAt
        self.availableAt = availableAt
        self.leaseOwner = leaseOwner
        self.leasedUntil = leasedUntil
        self.revokedAt = revokedAt
        self.verifiedAt = verifiedAt
        self.finishedAt = finishedAt
        self.lastError = lastError
    }
}
