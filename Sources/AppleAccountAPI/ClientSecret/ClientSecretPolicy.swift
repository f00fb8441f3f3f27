/// How long a minted client secret lives and when it is replaced.
///
/// Apple accepts a secret whose `exp` is at most 15,777,000 s (about six months) after its `iat` (Apple,
/// "Creating a client secret"). A long-lived secret is a bearer credential worth stealing, and minting one costs
/// a single ECDSA signature, so the default is one hour, reused until five minutes before it expires.
public struct ClientSecretPolicy: Hashable, Sendable {
    /// Apple's ceiling on `exp − iat`, in seconds.
    public static let maximumLifetimeSeconds: Int64 = 15_777_000

    /// `exp − iat`, in seconds. Default 3,600; at most ``maximumLifetimeSeconds``.
    public var lifetimeSeconds: Int64
    /// A cached secret is replaced once fewer than this many seconds of it remain, so a request never leaves
    /// with a secret that expires in flight. Default 300; less than ``lifetimeSeconds``.
    public var renewalMarginSeconds: Int64

    public init(lifetimeSeconds: Int64 = 3_600, renewalMarginSeconds: Int64 = 300) {
        self.lifetimeSeconds = lifetimeSeconds
        self.renewalMarginSeconds = renewalMarginSeconds
    }

    /// Nil when usable, otherwise one line naming the value and the fix.
    public var problem: String? {
        if lifetimeSeconds <= 0 || lifetimeSeconds > Self.maximumLifetimeSeconds {
            return "client secret lifetime \(lifetimeSeconds) s is outside 1…\(Self.maximumLifetimeSeconds) s "
                + "(Apple refuses longer ones)"
        }
        if renewalMarginSeconds < 0 || renewalMarginSeconds >= lifetimeSeconds {
            return "client secret renewal margin \(renewalMarginSeconds) s must be at least 0 and less than the "
                + "lifetime \(lifetimeSeconds) s"
        }
        return nil
    }
}
