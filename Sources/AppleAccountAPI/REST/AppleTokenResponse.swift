/// A successful `/auth/token` answer (Apple, "TokenResponse"), decoded strictly. Its description shows the token
/// type and lifetime and which tokens are present, never the tokens.
public struct AppleTokenResponse: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    public var accessToken: AppleAccessToken
    /// `Bearer` (compared case-insensitively, RFC 6749 §7.1), as received.
    public var tokenType: String
    /// Seconds the access token is valid; Apple answers 3600.
    public var expiresIn: Int64
    /// Present after a code exchange.
    public var refreshToken: AppleRefreshToken?
    /// Present after a code exchange; check it with `IdentityTokenVerifier`.
    public var idToken: AppleIdentityToken?

    public init(
        accessToken: AppleAccessToken, tokenType: String, expiresIn: Int64, refreshToken: AppleRefreshToken?,
        idToken: AppleIdentityToken?
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
    }

    public var description: String {
        "AppleTokenResponse(token_type: \(tokenType), expires_in: \(expiresIn), access_token: \(accessToken), "
            + "refresh_token: \(refreshToken?.description ?? "none"), id_token: \(idToken?.description ?? "none"))"
    }

    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
