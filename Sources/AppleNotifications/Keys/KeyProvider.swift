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

/// Where the verifier gets Apple's public keys. Looked up **by `kid`**, never by position: Apple publishes
/// several keys and rotates them (DOMAIN.md §1).
public protocol KeyProvider: Sendable {
    func key(for keyID: String) async -> KeyLookup
}

/// A fixed set of keys: offline inspection of archived tokens, tests, benchmarks.
public struct StaticKeyProvider: KeyProvider {
    public let keys: [String: RSAPublicKey]

    public init(keys: [String: RSAPublicKey]) {
        self.keys = keys
    }

    /// Builds the provider from a JWKS; keys whose `n`/`e` do not form a valid RSA key are skipped.
    public init(jwks: JWKSet) {
        var keys: [String: RSAPublicKey] = [:]
        for jwk in jwks.keys where jwk.isUsableForRS256 {
            if let key = try? jwk.publicKey() { keys[jwk.keyID] = key }
        }
        self.keys = keys
    }

    public func key(for keyID: String) async -> KeyLookup {
        keys[keyID].map(KeyLookup.found) ?? .notFound
    }
}
