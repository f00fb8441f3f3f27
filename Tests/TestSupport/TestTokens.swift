import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools

/// How a test token is signed: the honest way, or one of the attacks the verifier must refuse.
public enum TestSigning: Sendable {
    /// RS256 with the factory's key (the honest case).
    case rs256
    /// RSASSA-PSS with the factory's key: a valid signature under a different algorithm.
    case ps256
    /// Unsecured JWS (RFC 7515 Appendix A.5): empty signature.
    case none
    /// HMAC-SHA256 keyed with these bytes, e.g. the RSA public key PEM (the classic key-confusion attack).
    case hs256(secret: [UInt8])
    /// A literal signature, e.g. random bytes.
    case signature([UInt8])
}

/// Fixed values tests share, so expectations are readable and stable.
public enum TestFixtures {
    public static let audience = "com.example.shop"
    /// 2025-07-15T09:36:31Z: a second after Apple's sample `event_time` 1752572190719.
    public static let issuedAt = Instant(secondsSinceEpoch: 1_752_572_191)
    public static let eventTimeMilliseconds: Int64 = 1_752_572_190_719
    /// Shaped like a real `sub`; not a real person's.
    public static let subject = "001234.0123456789abcdef0123456789abcdef.0101"
    public static let jti = "AbCdEfGhIjKlMnOpQrStUv"
}

/// Mints tokens with arbitrary headers, claims and signing modes.
public struct TestTokenFactory: Sendable {
    public var key: RSAPrivateKey
    public var keyID: String

    public init(key: RSAPrivateKey = TestKeys.rsa2048, keyID: String = TestKeys.keyID) {
        self.key = key
        self.keyID = keyID
    }

    /// The event object before encoding.
    public static func event(
        type: String = "consent-revoked", subject: String = TestFixtures.subject,
        eventTime: JSONValue = .integer(TestFixtures.eventTimeMilliseconds), extra: JSONObject = [:]
    ) -> JSONObject {
        var members: JSONObject = ["type": .string(type), "sub": .string(subject), "event_time": eventTime]
        for member in extra { members[member.key] = member.value }
        return members
    }

    /// Claims as Apple sends them (events as a JSON string), with `overrides` applied last: a value replaces
    /// the claim, `nil` removes it.
    public static func claims(
        event: JSONObject = event(), audience: String = TestFixtures.audience,
        issuedAt: Instant = TestFixtures.issuedAt, overrides: [String: JSONValue?] = [:]
    ) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(AppleIdentity.issuer),
            "aud": .string(audience),
            "iat": .integer(issuedAt.secondsSinceEpoch),
            "exp": .integer(issuedAt.secondsSinceEpoch + NotificationSigner.defaultLifetimeSeconds),
            "jti": .string(TestFixtures.jti),
            "events": .string(JSONValue.object(event).encodedString),
        ]
        for (name, value) in overrides { claims[name] = value }
        return claims
    }

    /// The standard header `{"alg":"RS256","kid":…}` with `overrides` applied (`nil` removes a member).
    public func header(overrides: [String: JSONValue?] = [:]) -> JSONObject {
        var header: JSONObject = ["alg": .string("RS256"), "kid": .string(keyID)]
        for (name, value) in overrides { header[name] = value }
        return header
    }

    /// A compact JWS over the exact header and claims given.
    public func token(
        header: JSONObject? = nil, claims: JSONObject = claims(), signing: TestSigning = .rs256
    ) -> String {
        token(
            rawHeader: JSONValue.object(header ?? self.header()).encoded(),
            rawClaims: JSONValue.object(claims).encoded(), signing: signing)
    }

    /// A compact JWS over raw header and claims bytes (for claims that are not valid JSON).
    public func token(rawHeader: [UInt8], rawClaims: [UInt8], signing: TestSigning = .rs256) -> String {
        let signingInput = Base64URL.encode(rawHeader) + "." + Base64URL.encode(rawClaims)
        let message = Array(signingInput.utf8)
        let signature: [UInt8]
        do {
            switch signing {
            case .rs256: signature = try key.signRS256(message)
            case .ps256: signature = try key.signPS256(message)
            case .none: signature = []
            case .hs256(let secret): signature = HMACSHA256.authenticate(message, key: secret)
            case .signature(let bytes): signature = bytes
            }
        } catch {
            fatalError("cannot sign a test token: \(error)")
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The public key set holding this factory's key.
    public var jwks: JWKSet {
        do { return JWKSet(keys: [try JWK(keyID: keyID, publicKey: key.publicKey)]) } catch {
            fatalError("cannot export a test key: \(error)")
        }
    }

    public var keyProvider: StaticKeyProvider { StaticKeyProvider(keys: [keyID: key.publicKey]) }

    /// A verifier that trusts this factory's key and ``TestFixtures/audience``.
    public func verifier(audiences: Set<String> = [TestFixtures.audience]) -> NotificationVerifier {
        NotificationVerifier(keys: keyProvider, configuration: .init(audiences: audiences))
    }
}
