import AppleNotifications
import LifecycleCore

/// Verifies Security Event Tokens (RFC 8417) pushed (RFC 8935) or polled (RFC 8936) from one transmitter, and
/// decodes their event.
///
/// Checks run in this order and the first failure wins: structure (`malformed_jws`) → `typ` for the profile
/// (`malformed_jws`) → the RS256 or ES256 signature by `kid` (``JWSSignatureCheck``: the key's type decides the
/// algorithm), before any claim is parsed →
/// claims JSON (`malformed_claims`) → `iss` exactly (`invalid_issuer`) → `aud`, a string or an array, one of
/// the configured (`invalid_audience`) → `exp` when present and the profile checks it (`expired`) → `iat`
/// required, not after now + leeway (`issued_in_future`) → `jti` (`malformed_claims`) → `events`, an object of
/// objects (`malformed_event`) → the subject (`malformed_event`). Every number an attacker controls goes through
/// overflow-checked arithmetic; no input traps (the `SecurityEventTokenTarget` property checks it).
public struct SecurityEventVerifier: Sendable {
    public struct Configuration: Hashable, Sendable {
        public var profile: SignalProfile
        /// Required `iss`, compared exactly.
        public var issuer: String
        /// Accepted `aud` values.
        public var audiences: Set<String>
        /// Clock skew tolerated on `exp` and `iat`, in seconds. Default 60.
        public var leewaySeconds: Int64
        public var minimumKeyBits: Int
        public var limits: CompactJWS.Limits

        public init(
            profile: SignalProfile, issuer: String, audiences: Set<String>, leewaySeconds: Int64 = 60,
            minimumKeyBits: Int = 2048, limits: CompactJWS.Limits = CompactJWS.Limits()
        ) {
            self.profile = profile
            self.issuer = issuer
            self.audiences = audiences
            self.leewaySeconds = leewaySeconds
            self.minimumKeyBits = minimumKeyBits
            self.limits = limits
        }
    }

    /// RS256 (Google, most transmitters) and ES256 (RFC 7518 §3.4), each only with a key of its own type.
    public static let algorithms: Set<String> = ["RS256", "ES256"]

    public let keys: any KeyProvider
    public let configuration: Configuration

    public init(keys: any KeyProvider, configuration: Configuration) {
        self.keys = keys
        self.configuration = configuration
    }

    public func verify(_ token: [UInt8], at now: Instant) async -> Result<SecurityEventToken, VerificationError> {
        do throws(VerificationError) {
            let jws = try CompactJWS(parsing: token, limits: configuration.limits)
            try Self.checkType(jws.header, profile: configuration.profile)
            let kid = try await JWSSignatureCheck(
                keys: keys, algorithms: Self.algorithms, minimumKeyBits: configuration.minimumKeyBits
            ).verify(jws)
            return .success(try Self.claims(jws.payload, keyID: kid, now: now, configuration: configuration))
        } catch {
            return .failure(error)
        }
    }

    /// The header's `typ` as the profile requires it (RFC 8417 §2.3).
    public static func checkType(_ header: JSONObject, profile: SignalProfile) throws(VerificationError) {
        let type: String?
        switch header["typ"] {
        case .string(let value)?: type = value
        case nil: type = nil
        case .some:
            throw VerificationError(.malformedJWS, "header \"typ\" is not a string")
        }
        guard profile.accepts(type: type) else {
            throw VerificationError(
                .malformedJWS,
                "header typ \(type.map { NotificationVerifier.printable($0) } ?? "missing") is not secevent+jwt")
        }
    }

    /// The claims of a SET whose signature was verified, checked and decoded: pure, so the property target
    /// runs it over arbitrary payloads.
    public static func claims(
        _ payload: [UInt8], keyID: String, now: Instant, configuration: Configuration
    ) throws(VerificationError) -> SecurityEventToken {
        guard case .object(let claims)? = JSONValue.parseIfValid(payload) else {
            throw VerificationError(.malformedClaims, "claims are not a JSON object")
        }
        guard case .string(let issuer)? = claims["iss"], issuer == configuration.issuer else {
            throw VerificationError(.invalidIssuer, "iss is not \(configuration.issuer)")
        }
        let audience = try matchedAudience(claims["aud"], configuration.audiences)
        let leeway = configuration.leewaySeconds &* 1000
        var expiresAt: Instant?
        if let rawExpiry = claims["exp"] {
            let expiry = try NotificationVerifier.numericDate(rawExpiry, "exp")
            expiresAt = expiry
            if configuration.profile.checksExpiry,
                now.millisecondsSinceEpoch >= expiry.millisecondsSinceEpoch &+ leeway
            {
                throw VerificationError(.expired, "token expired at \(expiry.iso8601)")
            }
        }
        guard let rawIssuedAt = claims["iat"] else {
            throw VerificationError(.malformedClaims, "iat is missing")
        }
        let issuedAt = try NotificationVerifier.numericDate(rawIssuedAt, "iat")
        // It is the event's time when the SET names no other, and that time is stored and reported.
        guard issuedAt.millisecondsSinceEpoch >= 0 else {
            throw VerificationError(.malformedClaims, "iat is before 1970")
        }
        guard issuedAt.millisecondsSinceEpoch <= now.millisecondsSinceEpoch &+ leeway else {
            throw VerificationError(.issuedInFuture, "iat \(issuedAt.iso8601) is after \(now.iso8601)")
        }
        guard case .string(let jti)? = claims["jti"], !jti.isEmpty, jti.utf8.count <= 256 else {
            throw VerificationError(.malformedClaims, "jti is missing, empty or longer than 256 bytes")
        }
        guard case .object(let events)? = claims["events"], !events.isEmpty else {
            throw VerificationError(.malformedEvent, "events is missing or not a non-empty object")
        }
        // SSF 1.0 §4: one event per SET; several members are alternative URIs of it. The first known one is the
        // event; the rest are recorded.
        let chosen = events.members.first { SecurityEventType(uri: $0.key).isKnown } ?? events.members[0]
        guard case .object(let event) = chosen.value else {
            throw VerificationError(.malformedEvent, "the event is not a JSON object")
        }
        let eventType = SecurityEventType(uri: chosen.key)
        var eventTime = issuedAt
        if let timestamp = event["event_timestamp"] {
            eventTime = try Self.eventTime(timestamp, "event_timestamp")
        } else if let occurred = claims["toe"] {
            eventTime = try Self.eventTime(occurred, "toe")
        }
        guard eventTime.millisecondsSinceEpoch <= now.millisecondsSinceEpoch &+ leeway else {
            throw VerificationError(.issuedInFuture, "the event's time \(eventTime.iso8601) is after \(now.iso8601)")
        }
        var subject: SubjectIdentifier?
        if let identifier = claims["sub_id"] {
            subject = try SubjectIdentifier(decoding: identifier)
        } else if let identifier = event["subject"] {
            subject = try SubjectIdentifier(decoding: identifier)
        }
        switch eventType {
        case .verification, .streamUpdated:
            break
        default:
            guard subject != nil else {
                throw VerificationError(.malformedEvent, "the SET has no sub_id and its event no subject")
            }
        }
        return SecurityEventToken(
            jti: jti, issuer: issuer, audience: audience, issuedAt: issuedAt, expiresAt: expiresAt, keyID: keyID,
            eventType: eventType, otherEventTypes: events.keys.filter { $0 != chosen.key }, eventTime: eventTime,
            subject: subject, reason: Self.shortString(event["reason"]), state: Self.shortString(event["state"]),
            status: Self.shortString(event["status"]),
            newValue: eventType == .identifierChanged ? try Self.newValue(event["new-value"]) : nil)
    }

    /// RISC 1.0 §2.5 `new-value`, optional: when present, a non-empty string no longer than a subject member
    /// (``SubjectIdentifier/maximumValueBytes``), since it becomes an account key.
    static func newValue(_ value: JSONValue?) throws(VerificationError) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= SubjectIdentifier.maximumValueBytes
        else {
            throw VerificationError(
                .malformedEvent, "identifier-changed new-value is not a non-empty string of at most 1024 bytes")
        }
        return text
    }

    /// RFC 7519 §4.1.3: `aud` is one string or an array of strings; one of them must be configured.
    private static func matchedAudience(_ value: JSONValue?, _ audiences: Set<String>) throws(VerificationError)
        -> String
    {
        let candidates: [String]
        switch value {
        case .string(let audience)?: candidates = [audience]
        case .array(let values)?: candidates = values.compactMap(\.stringValue)
        default: throw VerificationError(.invalidAudience, "aud is missing or not a string or array")
        }
        guard let matched = candidates.first(where: audiences.contains) else {
            throw VerificationError(.invalidAudience, "aud is not a configured audience")
        }
        return matched
    }

    /// A NumericDate no later than 9999-12-31, so every stored time formats and leaves room for deadlines.
    static func eventTime(_ value: JSONValue, _ name: String) throws(VerificationError) -> Instant {
        let instant: Instant
        do throws(VerificationError) {
            instant = try NotificationVerifier.numericDate(value, name)
        } catch {
            throw VerificationError(.malformedEvent, error.description)
        }
        guard instant.millisecondsSinceEpoch >= 0, instant <= ISO8601Format.latest else {
            throw VerificationError(.malformedEvent, "\(name) is out of range")
        }
        return instant
    }

    /// A string member kept as evidence, capped so a hostile SET cannot grow the stored row.
    static func shortString(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value, !text.isEmpty else { return nil }
        return String(text.unicodeScalars.prefix(256).map(Character.init))
    }
}
