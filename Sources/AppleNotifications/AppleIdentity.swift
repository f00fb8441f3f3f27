/// Fixed values of Sign in with Apple (Apple Developer documentation, "Processing changes for Sign in with
/// Apple accounts" and "Fetch Apple's public key for verifying token signature").
public enum AppleIdentity {
    /// The `iss` of every Apple-signed notification.
    public static let issuer = "https://appleid.apple.com"
    /// Apple's JWKS endpoint: several RSA keys at a time, rotated.
    public static let keysURL = "https://appleid.apple.com/auth/keys"
    /// The only signature algorithm Apple uses for these tokens, pinned by the verifier.
    public static let algorithm = "RS256"
}
