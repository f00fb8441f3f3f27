/// One finished call to Apple, for metrics (`lifecycle_apple_requests_total{endpoint,outcome}`) and logs. It
/// carries no token, client secret or user identifier.
public struct AppleRequestRecord: Hashable, Sendable {
    public var endpoint: AppleEndpoint
    /// The grant of a `/auth/token` call.
    public var grant: AppleGrant?
    public var clientID: String
    /// `ok`, or ``AppleAPIError/code``.
    public var outcome: String
    /// The HTTP status, nil when no answer arrived.
    public var status: Int?
    public var duration: Duration

    public init(
        endpoint: AppleEndpoint, grant: AppleGrant?, clientID: String, outcome: String, status: Int?,
        duration: Duration
    ) {
        self.endpoint = endpoint
        self.grant = grant
        self.clientID = clientID
        self.outcome = outcome
        self.status = status
        self.duration = duration
    }
}
