import LifecycleCore

/// A minted client secret: the ES256-signed JWT sent as `client_secret`, with the times it is valid between.
public struct AppleClientSecret: RedactedCredential {
    public static let kindName = "client secret"
    public let value: String
    /// The `sub` claim, equal to the `client_id` it is sent with.
    public let clientID: String
    public let issuedAt: Instant
    public let expiresAt: Instant

    public init(value: String, clientID: String, issuedAt: Instant, expiresAt: Instant) {
        self.value = value
        self.clientID = clientID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}
