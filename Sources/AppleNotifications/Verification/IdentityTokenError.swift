/// Why an `id_token` from Apple's token endpoint was not accepted: a stable machine `code` plus a description
/// that names the failing check. The description never contains the token, its `sub` or an e-mail address.
public struct IdentityTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable codes: logs, metrics and scripts match on these.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        case malformedJWS = "malformed_jws"
        case unsupportedAlgorithm = "unsupported_algorithm"
        case missingKid = "missing_kid"
        case unknownKid = "unknown_kid"
        case weakKey = "weak_key"
        case badSignature = "bad_signature"
        case malformedClaims = "malformed_claims"
        case invalidIssuer = "invalid_issuer"
        case invalidAudience = "invalid_audience"
        case expired = "expired"
        case issuedInFuture = "issued_in_future"
        /// The token is valid but names another account than the one being linked.
        case subjectMismatch = "subject_mismatch"
    }

    public var code: Code
    public var description: String
    /// True when the failure may be ours (Apple's key set could not be fetched), so the same token may verify
    /// on a later try.
    public var isRetryable: Bool

    public init(_ code: Code, _ description: String, isRetryable: Bool = false) {
        self.code = code
        self.description = description
        self.isRetryable = isRetryable
    }
}
