import LifecycleCrypto

/// The outcome of looking up a signing key by `kid`.
public enum KeyLookup: Sendable {
    case found(RSAPublicKey)
    /// The current key set has no such key (after any refresh the provider chose to make).
    case notFound
    /// No key set could be loaded at all, or the refresh this lookup needed failed: the problem is on our
    /// side, so the sender should retry later. The string says why (no secrets, no token content).
    case unavailable(String)
}

/// A public key that verifies one JWS algorithm: the algorithm belongs to the key, not to the token.
public enum VerificationKey: Sendable {
    /// RS256 (RFC 7518 §3.3).
    case rsa(RSAPublicKey)
    /// ES256 (RFC 7518 §3.4).
    case p256(P256PublicKey)

    /// The one `alg` this key verifies.
    public var algorithm: String {
        switch self {
        case .rsa: "RS256"
        case .p256: "ES256"
        }
    }
}

/// The outcome of looking up a signing key of any supported type by `kid`.
public enum VerificationKeyLookup: Sendable {
    case found(VerificationKey)
    case notFound
    case unavailable(String)
}

/// Where the verifier gets Apple's public keys. Looked up **by `kid`**, never by position: Apple publishes
/// several keys and rotates them (DOMAIN.md §1).
public protocol KeyProvider: Sendable {
    func key(for keyID: String) async -> KeyLookup
    /// The key of `kid` whatever its type (RSA or P-256); by default only the RSA keys of ``key(for:)``.
    func verificationKey(for keyID: String) async -> VerificationKeyLookup
}

extension KeyProvider {
    public func verificationKey(for keyID: String) async -> VerificationKeyLookup {
        switch await key(for: keyID) {
        case .found(let key): .found(.rsa(key))
        case .notFound: .notFound
        case .unavailable(let reason): .unavailable(reason)
        }
    }
}

/// A fixed set of keys: offline inspection of archived tokens, tests, benchmarks.
public struct StaticKeyProvider: KeyProvider {
    public let keys: [String: RSAPublicKey]
    public let p256Keys: [String: P256PublicKey]

    public init(keys: [String: RSAPublicKey], p256Keys: [String: P256PublicKey] = [:]) {
        self.keys = keys
        self.p256Keys = p256Keys
    }

    /// Builds the provider from a JWKS; keys whose `n`/`e` do not form a valid RSA key are skipped.
    public init(jwks: JWKSet) {
        var keys: [String: RSAPublicKey] = [:]
        for jwk in jwks.keys where jwk.isUsableForRS256 {
            if let key = try? jwk.publicKey() { keys[jwk.keyID] = key }
        }
        self.keys = keys
        var p256Keys: [String: P256PublicKey] = [:]
        for jwk in jwks.ecKeys where jwk.isUsableForES256 {
            if let key = try? jwk.publicKey() { p256Keys[jwk.keyID] = key }
        }
        self.p256Keys = p256Keys
    }

    public func key(for keyID: String) async -> KeyLookup {
        keys[keyID].map(KeyLookup.found) ?? .notFound
    }

    public func verificationKey(for keyID: String) async -> VerificationKeyLookup {
        if let key = keys[keyID] { return .found(.rsa(key)) }
        return p256Keys[keyID].map { .found(.p256($0)) } ?? .notFound
    }
}
