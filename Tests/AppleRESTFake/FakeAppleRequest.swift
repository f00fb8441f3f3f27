/// One request the stand-in received, and what it answered. Tests assert on these ("revoked once").
public struct FakeAppleRequest: Sendable, Hashable {
    /// Nil for a path the fake does not serve.
    public var endpoint: FakeAppleEndpoint?
    public var method: String
    public var path: String
    /// The decoded form (empty when the body was not a valid form). Holds real tokens: for assertions only.
    public var form: [String: String]
    public var status: Int
    /// The OAuth `error` answered, if any.
    public var error: String?
    /// Why the client secret was refused, when it was.
    public var clientSecretProblem: String?
    /// When the fake began to handle it, for tests of pacing.
    public var receivedAt: ContinuousClock.Instant = .now
    /// For a revoke: whether it ended a grant (false for unknown, foreign or already-ended tokens, and while the
    /// fake keeps revoked tokens valid).
    public var revokedGrant: Bool

    public var clientID: String? { form["client_id"] }
    public var grantType: String? { form["grant_type"] }
    public var token: String? { form["token"] }
    public var tokenTypeHint: String? { form["token_type_hint"] }
}
