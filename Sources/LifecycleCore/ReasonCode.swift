/// Why an incoming notification could not be verified. Stable: these strings appear in logs, metrics,
/// HTTP responses and reports, and scripts match on them (DESIGN.md §4).
public enum ReasonCode: String, Sendable, CaseIterable, Codable {
    case malformedBody = "malformed_body"
    case missingPayload = "missing_payload"
    case malformedJWS = "malformed_jws"
    case unsupportedAlgorithm = "unsupported_algorithm"
    case missingKid = "missing_kid"
    case unknownKid = "unknown_kid"
    case weakKey = "weak_key"
    case badSignature = "bad_signature"
    case invalidIssuer = "invalid_issuer"
    case invalidAudience = "invalid_audience"
    case expired = "expired"
    case issuedInFuture = "issued_in_future"
    case malformedClaims = "malformed_claims"
    case malformedEvent = "malformed_event"
    /// A security event push without the bearer token its provider's `authorization` asks for, or with
    /// another one (RFC 8935 §2.4 `authentication_failed`).
    case badAuthorization = "bad_authorization"
    /// A security event push whose body is not `application/secevent+jwt` (RFC 8935 §2.1).
    case unsupportedMediaType = "unsupported_media_type"
    /// A verified security event of a type its provider's `events` does not list (RFC 8935 §2.4
    /// `access_denied`: the transmitter may not send it here).
    case eventNotRequested = "event_not_requested"

    /// The RFC 8935 §2.4 `err` value that goes with this reason in a 400 response.
    public var rfc8935Error: String {
        switch self {
        case .malformedBody, .missingPayload, .malformedJWS, .malformedClaims, .malformedEvent, .unsupportedMediaType:
            "invalid_request"
        case .unsupportedAlgorithm, .missingKid, .unknownKid, .weakKey:
            "invalid_key"
        case .invalidIssuer: "invalid_issuer"
        case .invalidAudience: "invalid_audience"
        case .badSignature, .expired, .issuedInFuture, .badAuthorization: "authentication_failed"
        case .eventNotRequested: "access_denied"
        }
    }
}
