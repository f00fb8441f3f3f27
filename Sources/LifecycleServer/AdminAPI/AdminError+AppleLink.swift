import AppleAccountAPI
import AppleNotifications

extension AdminError {
    /// Why a sign-in's code or refresh token could not become a stored token, as the admin API answers it. No
    /// description carries a token, a code or a `sub` (``AppleAPIError`` and ``IdentityTokenError`` never do).
    ///
    /// - `invalid_grant`: 422 `apple_grant_refused` — the app sent a code that expired (five minutes), was used,
    ///   or belongs to another client ID, or a refresh token that no longer works.
    /// - a failure that may pass on a later try (429, 5xx, timeout, connection, Apple's key set unavailable):
    ///   503 `apple_unavailable`.
    /// - anything else from Apple (`invalid_client` …, an answer that is not Apple's): 502 `apple_client_refused`
    ///   — this service's credentials or base URL are wrong, which `lifecycle apple check` diagnoses.
    /// - an `id_token` that does not check out (another `sub`, audience, issuer, signature, expiry): 422
    ///   `id_token_mismatch`.
    static func appleLink(_ error: AppleLinkError) -> AdminError {
        switch error {
        case .apple(.invalidGrant):
            AdminError(
                status: 422, code: .appleGrantRefused,
                "Apple refused the grant (invalid_grant): the authorization code expired (codes live five minutes), "
                    + "was already used or was issued to another client ID, or the refresh token was revoked; "
                    + "nothing was stored")
        case .apple(let apple) where apple.isTransient:
            AdminError(
                status: 503, code: .appleUnavailable,
                "Apple's REST API did not answer usably (\(apple.description)); try again")
        case .apple(let apple):
            AdminError(
                status: 502, code: .appleClientRefused,
                "Apple refused this service's request (\(apple.code)); run lifecycle apple check for the app")
        case .identityToken(let token) where token.isRetryable:
            AdminError(
                status: 503, code: .appleUnavailable,
                "Apple's key set for the id_token is unavailable (\(token.code.rawValue)); try again")
        case .identityToken(let token):
            AdminError(
                status: 422, code: .identityTokenMismatch,
                "the id_token Apple returned is not this account's for this client ID (\(token.code.rawValue)); "
                    + "nothing was stored")
        }
    }
}
