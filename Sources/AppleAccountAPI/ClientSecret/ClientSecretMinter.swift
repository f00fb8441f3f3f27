import LifecycleCore
import LifecycleCrypto
import Synchronization

/// Mints the client secret Apple's REST API requires with every call and keeps it until near its expiry
/// (Apple, "Creating a client secret"):
///
/// - header `{"alg":"ES256","kid":<key ID>}`;
/// - claims `iss` = team ID, `iat` = now, `exp` = `iat` + ``ClientSecretPolicy/lifetimeSeconds``,
///   `aud` = `https://appleid.apple.com`, `sub` = the client ID;
/// - signed ECDSA P-256 SHA-256 in the JOSE `r ‖ s` form (RFC 7518 §3.4).
///
/// One secret per client ID, cached behind a mutex; the clock is injected so tests step time.
public final class ClientSecretMinter: Sendable {
    /// The `aud` Apple requires. It stays Apple's even when requests go to another base URL (tests).
    public static let audience = "https://appleid.apple.com"
    public static let algorithm = "ES256"

    public let credentials: AppleCredentials
    public let policy: ClientSecretPolicy
    private let now: @Sendable () -> Instant
    private let cache = Mutex([String: AppleClientSecret]())

    public init(
        credentials: AppleCredentials, policy: ClientSecretPolicy = ClientSecretPolicy(),
        now: @escaping @Sendable () -> Instant
    ) throws(AppleCredentialsError) {
        if let problem = policy.problem { throw AppleCredentialsError(field: "clientSecretLifetime", problem) }
        self.credentials = credentials
        self.policy = policy
        self.now = now
    }

    /// The cached secret for `clientID` while more than the renewal margin of it remains, otherwise a new one.
    public func secret(for clientID: String) throws(CryptoError) -> AppleClientSecret {
        let instant = now()
        if let cached = cache.withLock({ $0[clientID] }), isReusable(cached, at: instant) { return cached }
        let minted = try mint(for: clientID, at: instant)
        cache.withLock { $0[clientID] = minted }
        return minted
    }

    /// A new secret, bypassing the cache.
    public func mint(for clientID: String, at instant: Instant) throws(CryptoError) -> AppleClientSecret {
        // NumericDate is whole seconds (RFC 7519 §2); sub-second precision would only be truncated by Apple.
        let issuedAt = Instant(secondsSinceEpoch: instant.secondsSinceEpoch)
        let expiresAt = issuedAt.adding(seconds: policy.lifetimeSeconds)
        let header: JSONObject = ["alg": .string(Self.algorithm), "kid": .string(credentials.keyID)]
        let claims: JSONObject = [
            "iss": .string(credentials.teamID),
            "iat": .integer(issuedAt.secondsSinceEpoch),
            "exp": .integer(expiresAt.secondsSinceEpoch),
            "aud": .string(Self.audience),
            "sub": .string(clientID),
        ]
        let signingInput =
            Base64URL.encode(JSONValue.object(header).encoded()) + "."
            + Base64URL.encode(JSONValue.object(claims).encoded())
        let signature = try credentials.privateKey.signES256(Array(signingInput.utf8))
        return AppleClientSecret(
            value: signingInput + "." + Base64URL.encode(signature), clientID: clientID, issuedAt: issuedAt,
            expiresAt: expiresAt)
    }

    private func isReusable(_ secret: AppleClientSecret, at instant: Instant) -> Bool {
        // A clock that stepped back before `iat` would send a secret "issued in the future": mint again.
        secret.issuedAt <= instant
            && instant.millisecondsSinceEpoch
                < secret.expiresAt.millisecondsSinceEpoch &- policy.renewalMarginSeconds &* 1000
    }
}
