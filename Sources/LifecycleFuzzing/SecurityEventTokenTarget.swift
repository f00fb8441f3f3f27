import AppleNotifications
import LifecycleCore
import SharedSignals

/// The claims of a Shared Signals Security Event Token (RFC 8417, SSF 1.0, Google's RISC), decoded as they
/// are once the signature has verified, and the profile's `typ` check over the same bytes read as a header.
///
/// Properties: no input traps; refusals carry only the claim-level reason codes; an accepted SET has the
/// configured issuer, one of the configured audiences, a non-empty `jti`, an event time between the epoch and
/// now + leeway, a subject whenever its event moves an account, and an account key that reads back as the
/// same provider subject (and so does the alias an identifier-changed `new-value` makes); whatever the `ssf` profile accepts, `google-risc` accepts identically (it only
/// relaxes `exp`).
enum SecurityEventTokenTarget {
    static let target = FuzzTarget(
        name: "security-event-token",
        summary: "SET claims: claim-level refusals only, iss/aud/jti/time/subject sane, google-risc ⊇ ssf",
        check: check)

    static let now = Instant(secondsSinceEpoch: 1_767_225_600)
    static let audiences: Set<String> = ["https://receiver.example.com/", "1234.apps.googleusercontent.com"]
    static let ssf = SecurityEventVerifier.Configuration(
        profile: .ssf, issuer: "https://idp.example.com/", audiences: audiences)
    static let google = SecurityEventVerifier.Configuration(
        profile: .googleRISC, issuer: "https://idp.example.com/", audiences: audiences)
    static let claimCodes: Set<ReasonCode> = [
        .malformedClaims, .invalidIssuer, .invalidAudience, .expired, .issuedInFuture, .malformedEvent,
    ]

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        if case .object(let header)? = JSONValue.parseIfValid(bytes) {
            for profile in SignalProfile.allCases {
                do {
                    try SecurityEventVerifier.checkType(header, profile: profile)
                } catch {
                    try require(error.code == .malformedJWS, "typ refused with \(error.code)")
                }
            }
        }
        let strictResult = decode(bytes, ssf)
        let relaxedResult = decode(bytes, google)
        let strict: SecurityEventToken
        switch (strictResult, relaxedResult) {
        case (.failure(let error), .success):
            // Only `exp` differs between the profiles.
            try require(error.code == .expired, "google-risc accepted claims ssf refused with \(error.code)")
            return
        case (.failure(let error), .failure(let other)):
            try require(claimCodes.contains(error.code), "claims refused with \(error.code)")
            try require(
                error.code == .expired ? claimCodes.contains(other.code) : other.code == error.code,
                "the profiles refused with \(error.code) and \(other.code)")
            return
        case (.success, .failure(let error)):
            throw PropertyFailure("google-risc refused with \(error.code) claims ssf accepted")
        case (.success(let accepted), .success(let relaxed)):
            try require(relaxed == accepted, "the profiles decoded the same claims differently")
            strict = accepted
        }
        try require(strict.issuer == ssf.issuer, "an unconfigured issuer was accepted")
        try require(audiences.contains(strict.audience), "an unconfigured audience was accepted")
        try require(!strict.jti.isEmpty, "an empty jti was accepted")
        try require(strict.eventTime.millisecondsSinceEpoch >= 0, "a negative event time was accepted")
        try require(
            strict.eventTime.millisecondsSinceEpoch <= now.millisecondsSinceEpoch + ssf.leewaySeconds * 1000,
            "an event time after now + leeway was accepted")
        if case .input = strict.eventType.effect {
            try require(strict.subject != nil, "an account event without a subject was accepted")
        }
        if let subject = strict.subject?.providerSubject(provider: "idp") {
            try require(
                ProviderSubject(accountKey: subject.accountKey) == subject, "the account key does not read back")
        }
        // identifier-changed: a `new-value` is a bounded string, and the alias it makes is a key that reads back.
        if let newValue = strict.newValue {
            try require(strict.eventType == .identifierChanged, "new-value kept for \(strict.eventType.shortName)")
            try require(
                !newValue.isEmpty && newValue.utf8.count <= SubjectIdentifier.maximumValueBytes,
                "a new-value out of bounds was accepted")
            if let alias = strict.subject?.changed(to: newValue)?.providerSubject(provider: "idp") {
                try require(ProviderSubject(accountKey: alias.accountKey) == alias, "the alias key does not read back")
            }
        }
    }

    static func decode(
        _ bytes: [UInt8], _ configuration: SecurityEventVerifier.Configuration
    ) -> Result<SecurityEventToken, VerificationError> {
        Result { () throws(VerificationError) in
            try SecurityEventVerifier.claims(bytes, keyID: "k", now: now, configuration: configuration)
        }
    }
}
