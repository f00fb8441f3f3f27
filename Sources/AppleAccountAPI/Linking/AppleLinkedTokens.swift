import AppleNotifications
import LifecycleCore

/// The outcome of a code exchange whose `id_token` checked out: the tokens to store sealed, and who they
/// belong to. Its description shows neither the tokens nor the `sub`.
public struct AppleLinkedTokens: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    public var refreshToken: AppleRefreshToken
    public var accessToken: AppleAccessToken
    /// When the access token stops working (receipt time + `expires_in`).
    public var accessTokenExpiresAt: Instant
    public var identity: VerifiedIdentityToken

    public init(
        refreshToken: AppleRefreshToken, accessToken: AppleAccessToken, accessTokenExpiresAt: Instant,
        identity: VerifiedIdentityToken
    ) {
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.identity = identity
    }

    public var description: String {
        "AppleLinkedTokens(\(refreshToken), \(accessToken) until \(accessTokenExpiresAt.iso8601), \(identity))"
    }

    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
