import LifecycleCore
import LifecycleCrypto

/// One RSA key from a JSON Web Key Set (RFC 7517 §4, RFC 7518 §6.3.1), as Apple publishes them at
/// `https://appleid.apple.com/auth/keys`: `kty` `RSA`, `kid`, `use` `sig`, `alg` `RS256`, `n`, `e`.
public struct JWK: Hashable, Sendable {
    public var keyID: String
    /// Base64url big-endian modulus.
    public var n: String
    /// Base64url big-endian public exponent.
    public var e: String
    public var algorithm: String?
    public var use: String?

    public init(keyID: String, n: String, e: String, algorithm: String? = "RS256", use: String? = "sig") {
        self.keyID = keyID
        self.n = n
        self.e = e
        self.algorithm = algorithm
        self.use = use
    }

    /// The JWK of an RSA public key, for the dev JWKS file and tests.
    public init(keyID: String, publicKey: RSAPublicKey) throws(CryptoError) {
        let (n, e) = try publicKey.jwkComponents()
        self.init(keyID: keyID, n: n, e: e)
    }

    /// Whether this key may verify RS256 signatures: `alg`, when present, must be `RS256` and `use`, when
    /// present, `sig` (RFC 7517 §4.2, §4.4). The algorithm belongs to the key, not to the token.
    public var isUsableForRS256: Bool {
        (algorithm == nil || algorithm == "RS256") && (use == nil || use == "sig")
    }

    /// Decodes `n` and `e` into an OpenSSL key.
    public func publicKey() throws(CryptoError) -> RSAPublicKey {
        guard let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else {
            throw CryptoError(.invalidKey, "JWK \(keyID): n or e is not base64url")
        }
        return try RSAPublicKey(modulus: modulus, exponent: exponent)
    }

    var jsonValue: JSONValue {
        var members: JSONObject = [
            "kty": .string("RSA"), "kid": .string(keyID), "n": .string(n), "e": .string(e),
        ]
        if let algorithm { members["alg"] = .string(algorithm) }
        if let use { members["use"] = .string(use) }
        return .object(members)
    }
}
