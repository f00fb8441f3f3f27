/// A token `/auth/revoke` accepts, with the `token_type_hint` that goes with it (Apple, "Revoke tokens";
/// RFC 7009 §2.1).
public enum AppleRevocableToken: Sendable, Hashable, CustomStringConvertible {
    case refresh(AppleRefreshToken)
    case access(AppleAccessToken)

    /// The `token_type_hint` form value.
    public var typeHint: String {
        switch self {
        case .refresh: "refresh_token"
        case .access: "access_token"
        }
    }

    var value: String {
        switch self {
        case .refresh(let token): token.value
        case .access(let token): token.value
        }
    }

    public var description: String {
        switch self {
        case .refresh(let token): token.description
        case .access(let token): token.description
        }
    }
}
