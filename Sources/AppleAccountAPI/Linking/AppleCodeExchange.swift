import AppleNotifications
import LifecycleCore

/// A sign-in reported by the app becomes stored tokens only through here: exchange the authorization code at
/// Apple, then check the `id_token` that came back (issuer, audience = the client ID, signature from Apple's
/// key set, expiry, and `sub` equal to the account being linked) before the refresh token is handed on.
///
/// When the `id_token` fails, the tokens are dropped, not revoked: they may belong to another user (a code
/// sent for the wrong account), whose authorization a revocation would end.
public struct AppleCodeExchange: Sendable {
    public let client: any AppleAccountClient
    public let verifier: IdentityTokenVerifier
    private let now: @Sendable () -> Instant

    public init(client: any AppleAccountClient, verifier: IdentityTokenVerifier, now: @escaping @Sendable () -> Instant)
    {
        self.client = client
        self.verifier = verifier
        self.now = now
    }

    public func link(
        code: AppleAuthorizationCode, redirectURI: String?, clientID: String, expectedSubject: String
    ) async -> Result<AppleLinkedTokens, AppleLinkError> {
        let response: AppleTokenResponse
        switch await client.exchange(code: code, redirectURI: redirectURI, clientID: clientID) {
        case .success(let tokens): response = tokens
        case .failure(let error): return .failure(.apple(error))
        }
        let received = now()
        // The decoder guarantees both for a code exchange; a client that breaks that promise is refused here.
        guard let refreshToken = response.refreshToken, let idToken = response.idToken else {
            return .failure(.apple(.malformedResponse("the exchange answer lacks refresh_token or id_token")))
        }
        switch await verifier.verify(
            idToken: idToken.value, clientID: clientID, expectedSubject: expectedSubject, at: received)
        {
        case .failure(let error):
            return .failure(.identityToken(error))
        case .success(let identity):
            let (milliseconds, overflow) = response.expiresIn.multipliedReportingOverflow(by: 1000)
            let expiresAt =
                overflow ? Instant(millisecondsSinceEpoch: .max) : received.adding(milliseconds: milliseconds)
            return .success(
                AppleLinkedTokens(
                    refreshToken: refreshToken, accessToken: response.accessToken, accessTokenExpiresAt: expiresAt,
                    identity: identity))
        }
    }
}
