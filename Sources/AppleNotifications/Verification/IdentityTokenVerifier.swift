import LifecycleCore
import LifecycleCrypto

/// Verifies the `id_token` Apple's token endpoint returns with a code exchange (Apple, "Verifying a user";
/// OpenID Connect Core §3.1.3.7), before the service trusts that the tokens belong to the account being linked.
///
/// The same rules as ``NotificationVerifier`` where they overlap, and in the same order, first failure wins:
/// structure → `alg` pinned to `RS256` (never taken from the token) → no `crit` → `kid` → key by `kid` from
/// Apple's key set (`/auth/keys`) → RSA ≥ 2048 bits → signature, before any claim is parsed → `iss` →
/// `aud` equal to the client ID the code was exchanged for → `exp` (required) with leeway → `iat` (required) not
/// beyond now + leeway → `sub` present and, when the caller names the account, equal to it. The verification
/// time is a parameter, so tests are deterministic.
public struct IdentityTokenVerifier: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Required `iss`. Default `https://appleid.apple.com`.
        public var issuer: String
        /// Clock skew tolerated on `exp` and `iat`, in seconds. Default 60.
        public var leewaySeconds: Int64
        /// Smallest RSA modulus accepted, in bits (RFC 7518 §3.3). Default 2048.
        public var minimumKeyBits: Int
        public var limits: CompactJWS.Limits

        public init(
            issuer: String = AppleIdentity.issuer, leewaySeconds: Int64 = 60, minimumKeyBits: Int = 2048,
            limits: CompactJWS.Limits = CompactJWS.Limits()
        ) {
            self.issuer = issuer
            self.leewaySeconds = leewaySeconds
            self.minimumKeyBits = minimumKeyBits
            self.limits = limits
        }
    }

    public let keys: any KeyProvider
    public let configuration: Configuration

    public init(keys: any KeyProvider, configuration: Configuration = Configuration()) {
        self.keys = keys
        self.configuration = configuration
    }

    /// Verifies `idToken` as of `now` for `clientID`; with `expectedSubject`, the token must name that account.
    public func verify(
        idToken: String, clientID: String, expectedSubject: String?, at now: Instant
    ) async -> Result<VerifiedIdentityToken, IdentityTokenError> {
        do throws(IdentityTokenError) {
            let jws: CompactJWS
            do throws(VerificationError) {
                jws = try CompactJWS(parsing: Array(idToken.utf8), limits: configuration.limits)
            } catch {
                throw IdentityTokenError(.malformedJWS, error.description)
            }
            let kid = try checkHeader(jws.header)
            let key = try await lookUp(kid)
            guard key.bitCount >= configuration.minimumKeyBits else {
                throw IdentityTokenError(
                    .weakKey,
                    "key \(NotificationVerifier.printable(kid)) is \(key.bitCount) bits; at least "
                        + "\(configuration.minimumKeyBits) required")
            }
            guard key.verifyRS256(signature: jws.signature, message: jws.signingInput) else {
                throw IdentityTokenError(
                    .badSignature, "RS256 signature does not verify with key \(NotificationVerifier.printable(kid))")
            }
            return .success(
                try checkClaims(jws.payload, keyID: kid, clientID: clientID, expectedSubject: expectedSubject, now: now)
            )
        } catch {
            return .failure(error)
        }
    }

    private func checkHeader(_ header: JSONObject) throws(IdentityTokenError) -> String {
        guard case .string(let algorithm)? = header["alg"] else {
            throw IdentityTokenError(.unsupportedAlgorithm, "header has no \"alg\"; only RS256 is accepted")
        }
        guard algorithm == AppleIdentity.algorithm else {
            throw IdentityTokenError(
                .unsupportedAlgorithm,
                "alg \(NotificationVerifier.printable(algorithm)) is refused; only RS256 is accepted")
        }
        // RFC 7515 §4.1.11: a critical extension this verifier does not understand must be refused.
        if header["crit"] != nil {
            throw IdentityTokenError(.malformedJWS, "header lists critical extensions, none is supported")
        }
        guard case .string(let kid)? = header["kid"], !kid.isEmpty else {
            throw IdentityTokenError(.missingKid, "header has no \"kid\"")
        }
        return kid
    }

    private func lookUp(_ kid: String) async throws(IdentityTokenError) -> RSAPublicKey {
        switch await keys.key(for: kid) {
        case .found(let key): return key
        case .notFound:
            throw IdentityTokenError(.unknownKid, "no key \(NotificationVerifier.printable(kid)) in the key set")
        case .unavailable(let reason):
            throw IdentityTokenError(
                .unknownKid, "key \(NotificationVerifier.printable(kid)) cannot be looked up: \(reason)",
                isRetryable: true)
        }
    }

    private func checkClaims(
        _ payload: [UInt8], keyID: String, clientID: String, expectedSubject: String?, now: Instant
    ) throws(IdentityTokenError) -> VerifiedIdentityToken {
        guard case .object(let claims)? = JSONValue.parseIfValid(payload) else {
            throw IdentityTokenError(.malformedClaims, "claims are not a JSON object")
        }
        guard case .string(let issuer)? = claims["iss"], issuer == configuration.issuer else {
            throw IdentityTokenError(.invalidIssuer, "iss is not \(configuration.issuer)")
        }
        // Apple issues one audience as a string; an array (allowed by OIDC) is not what Apple sends, so refuse it
        // rather than guess which member counts.
        guard case .string(let audience)? = claims["aud"] else {
            throw IdentityTokenError(.invalidAudience, "aud is missing or not a string")
        }
        guard audience == clientID else {
            throw IdentityTokenError(
                .invalidAudience,
                "aud \(NotificationVerifier.printable(audience)) is not the client ID "
                    + "\(NotificationVerifier.printable(clientID)) the code was exchanged for")
        }
        let leeway = configuration.leewaySeconds &* 1000
        guard let rawExpiry = claims["exp"] else { throw IdentityTokenError(.malformedClaims, "exp is missing") }
        let expiresAt = try Self.numericDate(rawExpiry, "exp")
        guard now.millisecondsSinceEpoch < expiresAt.millisecondsSinceEpoch &+ leeway else {
            throw IdentityTokenError(.expired, "token expired at \(expiresAt.iso8601)")
        }
        guard let rawIssuedAt = claims["iat"] else { throw IdentityTokenError(.malformedClaims, "iat is missing") }
        let issuedAt = try Self.numericDate(rawIssuedAt, "iat")
        guard issuedAt.millisecondsSinceEpoch <= now.millisecondsSinceEpoch &+ leeway else {
            throw IdentityTokenError(.issuedInFuture, "iat \(issuedAt.iso8601) is after \(now.iso8601)")
        }
        guard case .string(let subject)? = claims["sub"], !subject.isEmpty else {
            throw IdentityTokenError(.malformedClaims, "sub is missing or empty")
        }
        if let expectedSubject, subject != expectedSubject {
            // Neither value is printed: both are personal identifiers.
            throw IdentityTokenError(.subjectMismatch, "the token's sub is not the account being linked")
        }
        return VerifiedIdentityToken(
            subject: subject, audience: audience, issuer: issuer, issuedAt: issuedAt, expiresAt: expiresAt,
            keyID: keyID)
    }

    private static func numericDate(_ value: JSONValue, _ name: String) throws(IdentityTokenError) -> Instant {
        do throws(VerificationError) {
            return try NotificationVerifier.numericDate(value, name)
        } catch {
            throw IdentityTokenError(.malformedClaims, error.description)
        }
    }
}
