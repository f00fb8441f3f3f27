/// The single-use code an app receives at sign-in (`ASAuthorizationAppleIDCredential.authorizationCode`) and
/// sends to its server; valid for five minutes (Apple, "Generate and validate tokens").
public struct AppleAuthorizationCode: RedactedCredential {
    public static let kindName = "authorization code"
    public let value: String
    public init(_ value: String) { self.value = value }
}

/// A refresh token from a code exchange: it does not expire on a schedule, proves the user's authorization is
/// still in place when a `refresh_token` grant succeeds, and is what `/auth/revoke` revokes first.
public struct AppleRefreshToken: RedactedCredential {
    public static let kindName = "refresh token"
    public let value: String
    public init(_ value: String) { self.value = value }
}

/// An access token (valid one hour, `expires_in` 3600): the revocation fallback when no refresh token is held.
public struct AppleAccessToken: RedactedCredential {
    public static let kindName = "access token"
    public let value: String
    public init(_ value: String) { self.value = value }
}

/// The signed `id_token` (a JWT naming the user's `sub`, possibly an e-mail address); checked with
/// `IdentityTokenVerifier` before the tokens that came with it are trusted.
public struct AppleIdentityToken: RedactedCredential {
    public static let kindName = "identity token"
    public let value: String
    public init(_ value: String) { self.value = value }
}
