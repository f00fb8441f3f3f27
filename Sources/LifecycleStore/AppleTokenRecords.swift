import LifecycleCore

/// How the service came to hold an account's Apple refresh token.
public enum AppleTokenSource: String, Sendable, Hashable, CaseIterable {
    /// The app reported a sign-in with its authorization code, and the service exchanged it at Apple.
    case authorizationCode = "authorization-code"
    /// The app handed over a refresh token it already held, and Apple confirmed it with a `refresh_token` grant.
    case refreshToken = "refresh-token"
}

/// A refresh token to keep for an account: sealed by the service (AES-256-GCM under the subject's
/// `apple-tokens` data key) before it reaches the store, which only ever sees these bytes.
public struct NewAppleToken: Sendable, Hashable {
    public var app: String
    public var subject: String
    /// The client ID the token was issued to: every later call with it (refresh, revoke) must name it.
    public var clientID: String
    public var sealedRefreshToken: [UInt8]
    public var source: AppleTokenSource
    public var linkedAt: Instant

    public init(
        app: String, subject: String, clientID: String, sealedRefreshToken: [UInt8], source: AppleTokenSource,
        linkedAt: Instant
    ) {
        self.app = app
        self.subject = subject
        self.clientID = clientID
        self.sealedRefreshToken = sealedRefreshToken
        self.source = source
        self.linkedAt = linkedAt
    }
}

/// An `apple_tokens` row: the token vault's entry for one account, and the bookkeeping the revocation and
/// probe schedules work from (``revokedAt``, ``lastProbeAt``).
public struct StoredAppleToken: Sendable, Hashable {
    public var app: String
    public var subject: String
    public var clientID: String
    /// Nil once the token is no longer kept: dropped by a transition, or cleared by erasure.
    public var sealedRefreshToken: [UInt8]?
    public var source: AppleTokenSource
    public var linkedAt: Instant
    /// When a transition dropped the token (it was not revoked at Apple).
    public var droppedAt: Instant?
    /// When Apple was told to revoke it.
    public var revokedAt: Instant?
    /// When the token was last validated with a `refresh_token` grant (at most once a day per token).
    public var lastProbeAt: Instant?

    public init(
        app: String, subject: String, clientID: String, sealedRefreshToken: [UInt8]?, source: AppleTokenSource,
        linkedAt: Instant, droppedAt: Instant?, revokedAt: Instant?, lastProbeAt: Instant?
    ) {
        self.app = app
        self.subject = subject
        self.clientID = clientID
        self.sealedRefreshToken = sealedRefreshToken
        self.source = source
        self.linkedAt = linkedAt
        self.droppedAt = droppedAt
        self.revokedAt = revokedAt
        self.lastProbeAt = lastProbeAt
    }

    /// The state the admin API shows (never the token).
    public var vaultState: AppleTokenVaultState {
        if let revokedAt { return .revoked(at: revokedAt) }
        return sealedRefreshToken == nil ? .notHeld : .held(since: linkedAt)
    }
}

/// Whether the service holds an account's Apple refresh token.
public enum AppleTokenVaultState: Sendable, Hashable {
    case held(since: Instant)
    /// Never held, dropped, or erased.
    case notHeld
    case revoked(at: Instant)

    public var canonicalName: String {
        switch self {
        case .held: "held"
        case .notHeld: "not-held"
        case .revoked: "revoked"
        }
    }
}
