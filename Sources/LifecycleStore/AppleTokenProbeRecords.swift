import LifecycleCore

/// One held Apple refresh token claimed for its daily probe: a `refresh_token` grant that tells whether Apple
/// still honours it (Apple, "Generate and validate tokens": validate a refresh token at most once a day). The
/// claim already recorded `claimedAt` as the token's last probe, so no other instance probes it for
/// ``AppleTokenProbeClaim/interval``; a probe that got no answer gives it back with
/// ``StoreWriter/releaseAppleTokenProbe(_:retryAt:)``.
public struct AppleTokenProbeClaim: Sendable, Hashable {
    /// Apple asks for at most one validation a day per refresh token, and may throttle (reportedly answering
    /// `invalid_client`) beyond it: a rule of Apple's, not a setting.
    public static let interval: Int64 = 86_400_000

    public var app: String
    public var subject: String
    /// The client the token was issued to, which the grant must name.
    public var clientID: String
    /// The probe time the claim wrote.
    public var claimedAt: Instant
    /// The last probe before this claim (nil when never probed), restored if the claim is released.
    public var previousProbeAt: Instant?

    public init(app: String, subject: String, clientID: String, claimedAt: Instant, previousProbeAt: Instant?) {
        self.app = app
        self.subject = subject
        self.clientID = clientID
        self.claimedAt = claimedAt
        self.previousProbeAt = previousProbeAt
    }
}
