/// A notification whose signature, issuer, audience and times have been checked, with its event decoded.
/// Only values of this type reach the store and the state machine.
public struct VerifiedNotification: Hashable, Sendable {
    /// The token's `jti`: the primary idempotency key.
    public var jti: String
    /// The token's `aud`: the client ID, which routes the notification to one configured app.
    public var audience: String
    public var issuer: String
    public var issuedAt: Instant
    /// Present in real tokens (`iat` + 86 400 s), absent from the documentation.
    public var expiresAt: Instant?
    /// The JWKS key that signed the token.
    public var keyID: String
    public var event: AppleEvent
    /// True when the token was accepted although expired (`ingest --allow-expired` only).
    public var acceptedExpired: Bool

    public init(
        jti: String, audience: String, issuer: String, issuedAt: Instant, expiresAt: Instant?, keyID: String,
        event: AppleEvent, acceptedExpired: Bool = false
    ) {
        self.jti = jti
        self.audience = audience
        self.issuer = issuer
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.keyID = keyID
        self.event = event
        self.acceptedExpired = acceptedExpired
    }
}
