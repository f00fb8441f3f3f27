/// The two `grant_type`s of `/auth/token`, which differ in what a successful answer must contain.
public enum AppleGrant: String, Hashable, Sendable {
    /// `authorization_code`: the answer carries a refresh token and an `id_token`.
    case authorizationCode = "authorization_code"
    /// `refresh_token`: the answer carries a new access token; Apple does not rotate the refresh token, and
    /// `id_token` has been reported missing from these answers, so both are optional.
    case refreshToken = "refresh_token"
}
