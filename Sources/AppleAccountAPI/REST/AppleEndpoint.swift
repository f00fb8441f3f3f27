/// The endpoints of Apple's Sign in with Apple REST API this service calls.
public enum AppleEndpoint: String, Hashable, Sendable, CaseIterable {
    /// `POST /auth/token`: exchange an authorization code or validate a refresh token ("Generate and validate
    /// tokens").
    case token
    /// `POST /auth/revoke`: revoke a refresh or access token ("Revoke tokens").
    case revoke
    /// `GET /auth/keys`: the JWKS that signs `id_token`s ("Fetch Apple's public key for verifying token
    /// signature").
    case keys

    public var path: String {
        switch self {
        case .token: "/auth/token"
        case .revoke: "/auth/revoke"
        case .keys: "/auth/keys"
        }
    }
}
