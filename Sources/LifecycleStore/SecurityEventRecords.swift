import LifecycleCore

/// A verified Security Event Token about to be stored in the inbox (`notifications`), beside Apple's
/// notifications: one table of everything the service received, one retention purge, one erasure.
///
/// Its `jti` is unique only per issuer (RFC 8417 §2.2), so the inbox keys it by app and provider too
/// (``inboxKey``); `sub` is the provider-qualified account key (``ProviderSubject/accountKey``) and `type` the
/// event-type URI, which no Apple type spells.
public struct NewSecurityEvent: Sendable, Hashable {
    public var app: String
    /// The provider's `id` in the app's `signals`.
    public var provider: String
    public var jti: String
    public var issuer: String
    public var audience: String
    /// The account key, or for a stream event without an account the stream's key.
    public var subject: String
    public var eventTypeURI: String
    public var eventTime: Instant
    public var issuedAt: Instant
    public var expiresAt: Instant?
    public var keyID: String
    public var receivedAt: Instant
    /// SHA-256 (hex) of the request body.
    public var bodySHA256: String
    /// The compact SET as received, sealed under the subject's data key.
    public var sealedRawSET: [UInt8]?
    /// How it arrived: `signal` (RFC 8935 push).
    public var source: String

    public init(
        app: String, provider: String, jti: String, issuer: String, audience: String, subject: String,
        eventTypeURI: String, eventTime: Instant, issuedAt: Instant, expiresAt: Instant?, keyID: String,
        receivedAt: Instant, bodySHA256: String, sealedRawSET: [UInt8]?, source: String
    ) {
        self.app = app
        self.provider = provider
        self.jti = jti
        self.issuer = issuer
        self.audience = audience
        self.subject = subject
        self.eventTypeURI = eventTypeURI
        self.eventTime = eventTime
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.keyID = keyID
        self.receivedAt = receivedAt
        self.bodySHA256 = bodySHA256
        self.sealedRawSET = sealedRawSET
        self.source = source
    }

    /// The inbox's `jti`: `set:<app>:<provider>:<jti>`, each part escaped as account keys are, so one
    /// transmitter's `jti` never collides with another's or with Apple's.
    public var inboxKey: String {
        "set:" + [app, provider, jti].map(ProviderSubject.escaped).joined(separator: ":")
    }
}
