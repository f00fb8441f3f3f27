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
        var members: [String: JSONValue] = [
            "kty": .string("RSA"), "kid": .string(keyID), "n": .string(n), "e": .string(e),
        ]
        if let algorithm { members["alg"] = .string(algorithm) }
        if let use { members["use"] = .string(use) }
        return .object(members)
    }
}

/// A JSON Web Key Set (RFC 7517 §5): `{"keys": [...]}`.
public struct JWKSet: Hashable, Sendable {
    /// The RSA keys that carry a `kid`. Keys of other types (`EC`, `OKP`, `oct`) and keys without `kid` are
    /// skipped, not errors: a set may legitimately hold keys this service never uses (RFC 7517 §5).
    public var keys: [JWK]
    /// How many entries were skipped as not usable here (other `kty`, no `kid`, missing `n`/`e`).
    public var skippedCount: Int

    public init(keys: [JWK], skippedCount: Int = 0) {
        self.keys = keys
        self.skippedCount = skippedCount
    }

    /// Decodes a JWKS document. Throws when the document is not JSON or has no `keys` array.
    public init(decoding bytes: [UInt8]) throws(JWKSError) {
        guard let document = JSONValue.parse(bytes) else {
            throw JWKSError(.malformedJWKS, "key set is not valid JSON")
        }
        guard case .array(let entries)? = document["keys"] else {
            throw JWKSError(.malformedJWKS, "key set has no \"keys\" array")
        }
        var keys: [JWK] = []
        var skipped = 0
        for entry in entries {
            guard entry["kty"]?.stringValue == "RSA", let kid = entry["kid"]?.stringValue, !kid.isEmpty,
                let n = entry["n"]?.stringValue, let e = entry["e"]?.stringValue
            else {
                skipped += 1
                continue
            }
            keys.append(
                JWK(keyID: kid, n: n, e: e, algorithm: entry["alg"]?.stringValue, use: entry["use"]?.stringValue))
        }
        self.init(keys: keys, skippedCount: skipped)
    }

    /// The JWKS document, deterministic (sorted keys).
    public func encoded() -> [UInt8] {
        JSONValue.object(["keys": .array(keys.map(\.jsonValue))]).encoded()
    }
}

/// Why a key set could not be loaded.
public struct JWKSError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        case fetchFailed = "jwks_fetch_failed"
        case malformedJWKS = "malformed_jwks"
        case noUsableKeys = "jwks_no_usable_keys"
    }

    public var code: Code
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
