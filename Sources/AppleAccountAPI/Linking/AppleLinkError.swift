import AppleNotifications

/// Why a sign-in could not be linked: Apple refused the exchange, or the `id_token` it returned did not check
/// out (wrong issuer, audience, signature, expiry, or another account's `sub`).
public enum AppleLinkError: Error, Hashable, Sendable, CustomStringConvertible {
    case apple(AppleAPIError)
    case identityToken(IdentityTokenError)

    /// Stable machine code: Apple's, or `id_token_` + the verifier's.
    public var code: String {
        switch self {
        case .apple(let error): error.code
        case .identityToken(let error): "id_token_" + error.code.rawValue
        }
    }

    public var description: String {
        switch self {
        case .apple(let error): "Apple refused the code exchange: \(error)"
        case .identityToken(let error): "the id_token Apple returned was not accepted: \(error)"
        }
    }
}
