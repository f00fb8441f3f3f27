import LifecycleCore
import LifecycleCrypto

/// Verifies Sign in with Apple server-to-server notifications (RFC 7515 JWS, RFC 7519 JWT) and decodes
/// their event.
///
/// Checks run in this order and the first failure wins, so each attack gets a precise reason code:
/// structure (`malformed_jws`) → `alg` exactly `RS256`, pinned here and never taken from the token
/// (`unsupported_algorithm`: `none`, `HS256` keyed with the public key, `PS256` relabels) → `kid`
/// (`missing_kid`) → key by `kid` (`unknown_kid`; the provider may refresh) → RSA ≥ 2048 bits (`weak_key`)
/// → signature (`bad_signature`), before any claim is parsed → claims JSON (`malformed_claims`) → `iss`
/// (`invalid_issuer`) → `aud` (`invalid_audience`) → `exp` when present, with leeway (`expired`) → `iat`
/// and `nbf` not beyond now + leeway (`issued_in_future`) → `jti` (`malformed_claims`) → event
/// (`malformed_event`). The verification time is a parameter, so archived tokens verify "as of" their
/// receipt and tests are deterministic (as app-store-server-library does).
public struct NotificationVerifier: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Required `iss`. Default `https://appleid.apple.com`.
        public var issuer: String
        /// Accepted `aud` values: the client IDs (primary App IDs) of the configured apps.
        public var audiences: Set<String>
        /// Clock skew tolerated on `exp`, `iat` and `nbf`, in seconds (RFC 7519 §4.1.4 "small leeway").
        /// Default 60.
        public var leewaySeconds: Int64
        /// Smallest RSA modulus accepted, in bits (RFC 7518 §3.3: 2048 or larger). Default 2048.
        public var minimumKeyBits: Int
        public var limits: CompactJWS.Limits

        public init(
            issuer: String = AppleIdentity.issuer, audiences: Set<String>, leewaySeconds: Int64 = 60,
            minimumKeyBits: Int = 2048, limits: CompactJWS.Limits = CompactJWS.Limits()
        ) {
            self.issuer = issuer
            self.audiences = audiences
            self.leewaySeconds = leewaySeconds
            self.minimumKeyBits = minimumKeyBits
            self.limits = limits
        }
    }

    public let keys: any KeyProvider
    public let configuration: Configuration

    public init(keys: any KeyProvider, configuration: Configuration) {
        self.keys = keys
        self.configuration = configuration
    }

    /// Verifies `jws` as of `now`. With `allowExpired` (replay through `lifecycle ingest --allow-expired`
    /// only) an expired token is accepted and marked ``VerifiedNotification/acceptedExpired``.
    public func verify(
        jws: String, at now: Instant, allowExpired: Bool = false
    ) async -> Result<VerifiedNotification, VerificationError> {
        await run(Array(jws.utf8), now: now, allowExpired: allowExpired, collectClaims: false).result
    }

    public func verify(
        jws: [UInt8], at now: Instant, allowExpired: Bool = false
    ) async -> Result<VerifiedNotification, VerificationError> {
        await run(jws, now: now, allowExpired: allowExpired, collectClaims: false).result
    }

    /// Verifies and also returns the decoded header and claims (`lifecycle inspect`).
    public func inspect(jws: String, at now: Instant, allowExpired: Bool = false) async -> VerificationReport {
        await run(Array(jws.utf8), now: now, allowExpired: allowExpired, collectClaims: true)
    }

    private func run(
        _ token: [UInt8], now: Instant, allowExpired: Bool, collectClaims: Bool
    ) async -> VerificationReport {
        var report = VerificationReport(
            header: nil, claims: nil, signatureVerified: false,
            result: .failure(VerificationError(.malformedJWS, "not verified")))
        do throws(VerificationError) {
            let jws = try CompactJWS(parsing: token, limits: configuration.limits)
            if collectClaims {
                report.header = .object(jws.header)
                if let claims = JSONValue.parseIfValid(jws.payload), case .object = claims { report.claims = claims }
            }
            let kid = try await JWSSignatureCheck(
                keys: keys, algorithms: [AppleIdentity.algorithm], minimumKeyBits: configuration.minimumKeyBits
            ).verify(jws)
            report.signatureVerified = true
            report.result = .success(
                try checkClaims(jws.payload, keyID: kid, now: now, allowExpired: allowExpired))
        } catch {
            report.result = .failure(error)
        }
        return report
    }

    private func checkClaims(
        _ payload: [UInt8], keyID: String, now: Instant, allowExpired: Bool
    ) throws(VerificationError) -> VerifiedNotification {
        guard case .object(let claims)? = JSONValue.parseIfValid(payload) else {
            throw VerificationError(.malformedClaims, "claims are not a JSON object")
        }
        guard case .string(let issuer)? = claims["iss"], issuer == configuration.issuer else {
            throw VerificationError(.invalidIssuer, "iss is not \(configuration.issuer)")
        }
        guard case .string(let audience)? = claims["aud"] else {
            throw VerificationError(.invalidAudience, "aud is missing or not a string")
        }
        guard configuration.audiences.contains(audience) else {
            throw VerificationError(.invalidAudience, "aud \(Self.printable(audience)) is not a configured client ID")
        }
        let leeway = configuration.leewaySeconds &* 1000
        let expiresAt = try claims["exp"].map { (value) throws(VerificationError) in try Self.numericDate(value, "exp")
        }
        var acceptedExpired = false
        if let expiresAt, now.millisecondsSinceEpoch >= expiresAt.millisecondsSinceEpoch &+ leeway {
            guard allowExpired else {
                throw VerificationError(.expired, "token expired at \(expiresAt.iso8601)")
            }
            acceptedExpired = true
        }
        guard let rawIssuedAt = claims["iat"] else {
            throw VerificationError(.malformedClaims, "iat is missing")
        }
        let issuedAt = try Self.numericDate(rawIssuedAt, "iat")
        guard issuedAt.millisecondsSinceEpoch <= now.millisecondsSinceEpoch &+ leeway else {
            throw VerificationError(.issuedInFuture, "iat \(issuedAt.iso8601) is after \(now.iso8601)")
        }
        if let rawNotBefore = claims["nbf"] {
            let notBefore = try Self.numericDate(rawNotBefore, "nbf")
            guard notBefore.millisecondsSinceEpoch <= now.millisecondsSinceEpoch &+ leeway else {
                throw VerificationError(.issuedInFuture, "nbf \(notBefore.iso8601) is after \(now.iso8601)")
            }
        }
        guard case .string(let jti)? = claims["jti"], !jti.isEmpty else {
            throw VerificationError(.malformedClaims, "jti is missing")
        }
        guard let events = claims["events"] else {
            throw VerificationError(.malformedEvent, "events is missing")
        }
        let event = try AppleEventDecoder.decode(events)
        return VerifiedNotification(
            jti: jti, audience: audience, issuer: issuer, issuedAt: issuedAt, expiresAt: expiresAt, keyID: keyID,
            event: event, acceptedExpired: acceptedExpired)
    }

    /// An RFC 7519 §2 NumericDate: seconds since the epoch, possibly fractional (truncated to milliseconds).
    public static func numericDate(_ value: JSONValue, _ name: String) throws(VerificationError) -> Instant {
        let milliseconds: Int64
        switch value {
        case .integer(let seconds):
            let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
            guard !overflow else { throw VerificationError(.malformedClaims, "\(name) is out of range") }
            milliseconds = product
        case .number(let seconds):
            let scaled = (seconds * 1000).rounded(.towardZero)
            guard scaled.isFinite, abs(scaled) < 9.0e18 else {
                throw VerificationError(.malformedClaims, "\(name) is out of range")
            }
            milliseconds = Int64(scaled)
        case .null, .bool, .string, .array, .object:
            throw VerificationError(.malformedClaims, "\(name) is not a number")
        }
        return Instant(millisecondsSinceEpoch: milliseconds)
    }

    /// Header values and `aud` are attacker-chosen: cap their length and keep printable ASCII only before
    /// they reach a log line.
    public static func printable(_ value: String, limit: Int = 64) -> String {
        let cleaned = value.unicodeScalars.prefix(limit).map { scalar in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F ? Character(scalar) : "?"
        }
        return "\"" + String(cleaned) + (value.unicodeScalars.count > limit ? "…" : "") + "\""
    }
}
