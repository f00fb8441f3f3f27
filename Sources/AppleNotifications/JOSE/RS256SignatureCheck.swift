import LifecycleCore
import LifecycleCrypto

/// The signature half of verifying a compact JWS signed RS256 by a key looked up by `kid`, shared by every
/// verifier of signed tokens from outside (Apple's notifications, Shared Signals SETs): `alg` exactly `RS256`,
/// pinned here and never taken from the token (`unsupported_algorithm`: `none`, `HS256` keyed with the public
/// key, `PS256` relabels) → no `crit` (RFC 7515 §4.1.11) → `kid` (`missing_kid`) → key by `kid`
/// (`unknown_kid`; the provider may refresh) → RSA ≥ ``minimumKeyBits`` (`weak_key`) → signature
/// (`bad_signature`). Only after it passes may the payload be parsed.
public struct RS256SignatureCheck: Sendable {
    public let keys: any KeyProvider
    /// Smallest RSA modulus accepted, in bits (RFC 7518 §3.3: 2048 or larger).
    public let minimumKeyBits: Int

    public init(keys: any KeyProvider, minimumKeyBits: Int = 2048) {
        self.keys = keys
        self.minimumKeyBits = minimumKeyBits
    }

    /// Checks `jws` and returns the `kid` whose key verified it.
    public func verify(_ jws: CompactJWS) async throws(VerificationError) -> String {
        let kid = try Self.keyID(jws.header)
        let key = try await lookUp(kid)
        guard key.bitCount >= minimumKeyBits else {
            throw VerificationError(
                .weakKey,
                "key \(NotificationVerifier.printable(kid)) is \(key.bitCount) bits; at least \(minimumKeyBits) required"
            )
        }
        guard key.verifyRS256(signature: jws.signature, message: jws.signingInput) else {
            throw VerificationError(
                .badSignature, "RS256 signature does not verify with key \(NotificationVerifier.printable(kid))")
        }
        return kid
    }

    static func keyID(_ header: JSONObject) throws(VerificationError) -> String {
        guard case .string(let algorithm)? = header["alg"] else {
            throw VerificationError(.unsupportedAlgorithm, "header has no \"alg\"; only RS256 is accepted")
        }
        guard algorithm == AppleIdentity.algorithm else {
            throw VerificationError(
                .unsupportedAlgorithm,
                "alg \(NotificationVerifier.printable(algorithm)) is refused; only RS256 is accepted")
        }
        if header["crit"] != nil {
            throw VerificationError(.malformedJWS, "header lists critical extensions, none is supported")
        }
        guard case .string(let kid)? = header["kid"], !kid.isEmpty else {
            throw VerificationError(.missingKid, "header has no \"kid\"")
        }
        return kid
    }

    private func lookUp(_ kid: String) async throws(VerificationError) -> RSAPublicKey {
        switch await keys.key(for: kid) {
        case .found(let key): return key
        case .notFound:
            throw VerificationError(.unknownKid, "no key \(NotificationVerifier.printable(kid)) in the key set")
        case .unavailable(let reason):
            throw VerificationError(
                .unknownKid, "key \(NotificationVerifier.printable(kid)) cannot be looked up: \(reason)",
                isRetryable: true)
        }
    }
}
