import LifecycleCore
import LifecycleCrypto

/// The signature half of verifying a compact JWS signed by a key looked up by `kid`, shared by every verifier
/// of signed tokens from outside (Apple's notifications: RS256 only; Shared Signals SETs: RS256 or ES256):
/// `alg` one of ``algorithms``, pinned by the verifier and never taken from the token alone
/// (`unsupported_algorithm`: `none`, `HS256` keyed with the public key, `PS256` relabels) → no `crit`
/// (RFC 7515 §4.1.11) → `kid` (`missing_kid`) → key by `kid` (`unknown_kid`; the provider may refresh) → the
/// key's own algorithm equal to `alg` (`unsupported_algorithm`: the algorithm belongs to the key) → RSA ≥
/// ``minimumKeyBits`` (`weak_key`) → signature (`bad_signature`; ES256 as JOSE `r ‖ s`, RFC 7518 §3.4). Only
/// after it passes may the payload be parsed.
public struct JWSSignatureCheck: Sendable {
    public let keys: any KeyProvider
    /// The `alg` values accepted, e.g. `["RS256"]` for Apple.
    public let algorithms: Set<String>
    /// Smallest RSA modulus accepted, in bits (RFC 7518 §3.3: 2048 or larger).
    public let minimumKeyBits: Int

    public init(keys: any KeyProvider, algorithms: Set<String> = ["RS256"], minimumKeyBits: Int = 2048) {
        self.keys = keys
        self.algorithms = algorithms
        self.minimumKeyBits = minimumKeyBits
    }

    /// Checks `jws` and returns the `kid` whose key verified it.
    public func verify(_ jws: CompactJWS) async throws(VerificationError) -> String {
        let (algorithm, kid) = try header(jws.header)
        let key = try await lookUp(kid)
        guard key.algorithm == algorithm else {
            throw VerificationError(
                .unsupportedAlgorithm,
                "key \(NotificationVerifier.printable(kid)) is an \(key.algorithm) key; the token says \(algorithm)")
        }
        switch key {
        case .rsa(let rsa):
            guard rsa.bitCount >= minimumKeyBits else {
                throw VerificationError(
                    .weakKey,
                    "key \(NotificationVerifier.printable(kid)) is \(rsa.bitCount) bits; at least \(minimumKeyBits) "
                        + "required")
            }
            guard rsa.verifyRS256(signature: jws.signature, message: jws.signingInput) else {
                throw VerificationError(
                    .badSignature, "RS256 signature does not verify with key \(NotificationVerifier.printable(kid))")
            }
        case .p256(let p256):
            guard p256.verifyES256(signature: jws.signature, message: jws.signingInput) else {
                throw VerificationError(
                    .badSignature, "ES256 signature does not verify with key \(NotificationVerifier.printable(kid))")
            }
        }
        return kid
    }

    private func header(_ header: JSONObject) throws(VerificationError) -> (algorithm: String, kid: String) {
        let accepted = algorithms.sorted().joined(separator: " or ")
        guard case .string(let algorithm)? = header["alg"] else {
            throw VerificationError(.unsupportedAlgorithm, "header has no \"alg\"; only \(accepted) is accepted")
        }
        guard algorithms.contains(algorithm) else {
            throw VerificationError(
                .unsupportedAlgorithm,
                "alg \(NotificationVerifier.printable(algorithm)) is refused; only \(accepted) is accepted")
        }
        if header["crit"] != nil {
            throw VerificationError(.malformedJWS, "header lists critical extensions, none is supported")
        }
        guard case .string(let kid)? = header["kid"], !kid.isEmpty else {
            throw VerificationError(.missingKid, "header has no \"kid\"")
        }
        return (algorithm, kid)
    }

    private func lookUp(_ kid: String) async throws(VerificationError) -> VerificationKey {
        switch await keys.verificationKey(for: kid) {
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
