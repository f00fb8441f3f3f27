/// The three calls the service makes to Apple's Sign in with Apple REST API. ``AppleRESTClient`` is the real
/// one; the protocol lets the vault, the revocation worker and the probe be driven by anything that answers the
/// same way.
///
/// Failures are values: `invalid_grant` is the expected answer of a probe after a revocation, so it is a
/// result to switch over, not an exception.
public protocol AppleAccountClient: Sendable {
    /// `POST /auth/token` with `grant_type=authorization_code`: the code an app received at sign-in, under the
    /// client ID it was issued for, with the `redirect_uri` of the authorization when there was one (web).
    func exchange(
        code: AppleAuthorizationCode, redirectURI: String?, clientID: String
    ) async -> Result<AppleTokenResponse, AppleAPIError>

    /// `POST /auth/token` with `grant_type=refresh_token`: proves the user's authorization still stands.
    /// Apple asks for at most one such call per token per day.
    func refresh(_ refreshToken: AppleRefreshToken, clientID: String) async -> Result<AppleTokenResponse, AppleAPIError>

    /// `POST /auth/revoke`. Success means Apple answered 200, which it also does for tokens it does not know:
    /// verify with ``refresh(_:clientID:)`` expecting `invalid_grant`.
    func revoke(_ token: AppleRevocableToken, clientID: String) async -> Result<Void, AppleAPIError>
}
