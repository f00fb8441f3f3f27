import LifecycleCore
import LifecycleCrypto

/// One P-256 key from a JSON Web Key Set (RFC 7517 §4, RFC 7518 §6.2.1): `kty` `EC`, `crv` `P-256`, `kid`,
/// `x`, `y`, as Shared Signals transmitters that sign ES256 publish them. Apple publishes none.
public struct ECJWK: Hashable, Sendable {
    public var keyID: String
    /// Base64url affine x coordinate (32 octets).
    public var x: String
    /// Base64url affine y coordinate (32 octets).
    public var y: String
    public var algorithm: String?
    public var use: String?

    public init(keyID: String, x: String, y: String, algorithm: String? = "ES256", use: String? = "sig") {
        self.keyID = keyID
        self.x = x
        self.y = y
        self.algorithm = algorithm
        self.use = use
    }

    /// The JWK of a P-256 public key, for tests and fakes.
    public init(keyID: String, publicKey: P256PublicKey) throws(CryptoError) {
        let (x, y) = try publicKey.coordinates()
        self.init(keyID: keyID, x: Base64URL.encode(x), y: Base64URL.encode(y))
    }

    /// Whether this key may verify ES256 signatures: `alg`, when present, `ES256`; `use`, when present, `sig`.
    public var isUsableForES256: Bool {
        (algorithm == nil || algorithm == "ES256") && (use == nil || use == "sig")
    }

    /// Decodes `x` and `y` into an OpenSSL key; a point off the curve is refused.
    public func publicKey() throws(CryptoError) -> P256PublicKey {
        guard let x = Base64URL.decode(x), let y = Base64URL.decode(y) else {
            throw CryptoError(.invalidKey, "JWK \(keyID): x or y is not base64url")
        }
        return try P256PublicKey(x: x, y: y)
    }

    var jsonValue: JSONValue {
        var members: JSONObject = [
            "kty": .string("EC"), "crv": .string("P-256"), "kid": .string(keyID), "x": .string(x), "y": .string(y),
        ]
        if let algorithm { members["alg"] = .string(algorithm) }
        if let use { members["use"] = .string(use) }
        return .object(members)
    }
}
