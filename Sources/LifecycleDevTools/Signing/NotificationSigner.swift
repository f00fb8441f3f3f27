import AppleNotifications
import LifecycleCore
import LifecycleCrypto

/// Mints notifications shaped like Apple's real traffic (DOMAIN.md §1), for `lifecycle simulate`, the local
/// demo, benchmarks and tests: header `{"alg":"RS256","kid":…}`; claims `iss`, `aud`, `iat`,
/// `exp` = `iat` + 86 400 s, a 22-character base64url `jti`, and `events` as a JSON-encoded **string** with
/// `event_time` in **milliseconds** and `is_private_email` as a `"true"`/`"false"` string.
public struct NotificationSigner: Sendable {
    /// Real tokens expire exactly one day after issue.
    public static let defaultLifetimeSeconds: Int64 = 86_400
    /// 16 random bytes encode to 22 base64url characters, the length of Apple's `jti`.
    public static let jtiByteCount = 16

    public let privateKey: RSAPrivateKey
    public let keyID: String

    public init(privateKey: RSAPrivateKey, keyID: String) {
        self.privateKey = privateKey
        self.keyID = keyID
    }

    /// Signs a notification for `event`.
    public func sign(
        event: AppleEvent, audience: String, issuedAt: Instant, issuer: String = AppleIdentity.issuer,
        jti: String = NotificationSigner.makeJTI(), lifetimeSeconds: Int64 = NotificationSigner.defaultLifetimeSeconds
    ) throws(CryptoError) -> String {
        try sign(
            claims: Self.claims(
                event: event, audience: audience, issuedAt: issuedAt, issuer: issuer, jti: jti,
                lifetimeSeconds: lifetimeSeconds))
    }

    /// Signs arbitrary claims under the standard header.
    public func sign(claims: JSONObject) throws(CryptoError) -> String {
        try sign(header: ["alg": .string(AppleIdentity.algorithm), "kid": .string(keyID)], claims: claims)
    }

    /// Signs with RS256 under an arbitrary header (tests relabel `alg` or drop `kid` with this).
    public func sign(header: JSONObject, claims: JSONObject) throws(CryptoError) -> String {
        let signingInput =
            Base64URL.encode(JSONValue.object(header).encoded()) + "."
            + Base64URL.encode(JSONValue.object(claims).encoded())
        let signature = try privateKey.signRS256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The claims set of a notification, as Apple sends it.
    public static func claims(
        event: AppleEvent, audience: String, issuedAt: Instant, issuer: String = AppleIdentity.issuer,
        jti: String = makeJTI(), lifetimeSeconds: Int64 = defaultLifetimeSeconds
    ) -> JSONObject {
        let issuedSeconds = issuedAt.secondsSinceEpoch
        return [
            "iss": .string(issuer),
            "aud": .string(audience),
            "iat": .integer(issuedSeconds),
            "exp": .integer(issuedSeconds &+ lifetimeSeconds),
            "jti": .string(jti),
            "events": .string(JSONValue.object(eventClaim(event)).encodedString),
        ]
    }

    /// The event object (before string encoding): `type`, `sub`, `event_time` in ms, and for e-mail events
    /// `email` and `is_private_email` as a string.
    public static func eventClaim(_ event: AppleEvent) -> JSONObject {
        var members: JSONObject = [
            "type": .string(event.type.canonicalName),
            "sub": .string(event.subject),
            "event_time": .integer(event.eventTime.millisecondsSinceEpoch),
        ]
        if let email = event.email { members["email"] = .string(email) }
        if let isPrivate = event.isPrivateEmail { members["is_private_email"] = .string(isPrivate ? "true" : "false") }
        return members
    }

    /// A fresh random `jti`: 22 base64url characters.
    public static func makeJTI() -> String {
        Base64URL.encode(SecureRandom.bytes(count: jtiByteCount))
    }
}
