import LifecycleCore

/// The full outcome of verifying one token, for `lifecycle inspect`: the decoded header and claims alongside
/// the verdict. `claims` is filled whenever the payload is a JSON object, even when a check failed, and
/// ``signatureVerified`` says whether those claims can be trusted.
public struct VerificationReport: Sendable {
    /// The protected header, when the token had a decodable one.
    public var header: JSONValue?
    /// The claims set as decoded (contains `sub` and possibly an e-mail: print it, never log it).
    public var claims: JSONValue?
    public var signatureVerified: Bool
    public var result: Result<VerifiedNotification, VerificationError>

    public var notification: VerifiedNotification? {
        if case .success(let notification) = result { return notification }
        return nil
    }

    public var error: VerificationError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    public var isValid: Bool { notification != nil }

    public init(
        header: JSONValue?, claims: JSONValue?, signatureVerified: Bool,
        result: Result<VerifiedNotification, VerificationError>
    ) {
        self.header = header
        self.claims = claims
        self.signatureVerified = signatureVerified
        self.result = result
    }
}
