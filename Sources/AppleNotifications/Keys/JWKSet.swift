import LifecycleCore

/// A JSON Web Key Set (RFC 7517 §5): `{"keys": [...]}`.
public struct JWKSet: Hashable, Sendable {
    /// The RSA keys that carry a `kid`. Keys of other types (`OKP`, `oct`, EC keys on other curves) and keys
    /// without `kid` are skipped, not errors: a set may legitimately hold keys this service never uses
    /// (RFC 7517 §5).
    public var keys: [JWK]
    /// The P-256 keys that carry a `kid` (ES256 transmitters of Shared Signals).
    public var ecKeys: [ECJWK] = []
    /// How many entries were skipped as not usable here (other `kty`, no `kid`, missing `n`/`e`).
    public var skippedCount: Int

    public init(keys: [JWK], skippedCount: Int = 0) {
        self.keys = keys
        self.skippedCount = skippedCount
    }

    /// Decodes a JWKS document. Throws when the document is not JSON or has no `keys` array.
    public init(decoding bytes: [UInt8]) throws(JWKSError) {
        guard let document = JSONValue.parseIfValid(bytes) else {
            throw JWKSError(.malformedJWKS, "key set is not valid JSON")
        }
        guard case .array(let entries)? = document["keys"] else {
            throw JWKSError(.malformedJWKS, "key set has no \"keys\" array")
        }
        var keys: [JWK] = []
        var ecKeys: [ECJWK] = []
        var skipped = 0
        for entry in entries {
            if entry["kty"]?.stringValue == "EC", entry["crv"]?.stringValue == "P-256",
                let kid = entry["kid"]?.stringValue, !kid.isEmpty, let x = entry["x"]?.stringValue,
                let y = entry["y"]?.stringValue
            {
                ecKeys.append(
                    ECJWK(keyID: kid, x: x, y: y, algorithm: entry["alg"]?.stringValue, use: entry["use"]?.stringValue))
                continue
            }
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
        self.ecKeys = ecKeys
    }

    /// The JWKS document, deterministic (sorted keys).
    public func encoded() -> [UInt8] {
        JSONValue.object(["keys": .array(keys.map(\.jsonValue) + ecKeys.map(\.jsonValue))]).encoded()
    }
}
