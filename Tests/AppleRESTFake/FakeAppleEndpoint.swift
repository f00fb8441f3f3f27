/// The endpoints of the stand-in, each of which can be told to misbehave on its own.
public enum FakeAppleEndpoint: String, Hashable, Sendable, CaseIterable {
    case token
    case revoke
    case keys

    var path: String { "/auth/" + rawValue }
}

/// How an endpoint answers. Faults come before any other check, like a proxy or a throttle in front of Apple.
public enum FakeAppleBehaviour: Hashable, Sendable {
    /// As Apple would.
    case normal
    /// `400 {"error":"invalid_client"}` whatever the secret (also how throttling has been reported).
    case invalidClient
    /// An HTTP 5xx with a small HTML body.
    case serverError(status: Int)
    /// `429` with `Retry-After` when given.
    case rateLimited(retryAfter: String?)
    /// Waits this long, then answers as ``normal``.
    case slow(Duration)
    /// A raw answer, for malformed-response tests.
    case raw(status: Int, contentType: String, body: [UInt8])
}
