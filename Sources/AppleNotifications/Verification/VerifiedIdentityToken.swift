import LifecycleCore

/// The claims of an `id_token` that passed ``IdentityTokenVerifier``. Its description leaves out `sub`, which is
/// personal data (RULES: no PII in logs).
public struct VerifiedIdentityToken: Hashable, Sendable, CustomStringConvertible {
    /// The stable user identifier Apple assigns per team (`sub`).
    public var subject: String
    /// The client ID the token was issued to (`aud`).
    public var audience: String
    public var issuer: String
    public var issuedAt: Instant
    public var expiresAt: Instant
    /// The `kid` of the key that signed it.
    public var keyID: String

    public init(
        subject: String, audience: String, issuer: String, issuedAt: Instant, expiresAt: Instant, keyID: String
    ) {
        self.subject = subject
        self.audience = audience
        self.issuer = issuer
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.keyID = keyID
    }

    public var description: String {
        "VerifiedIdentityToken(aud: \(audience), iat: \(issuedAt.iso8601), exp: \(expiresAt.iso8601), kid: \(keyID))"
    }
}
