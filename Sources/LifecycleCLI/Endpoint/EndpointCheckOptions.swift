/// What `EndpointChecker` checks and how patient it is.
public struct EndpointCheckOptions: Sendable, Hashable {
    /// The endpoint URL as the operator will register it with Apple. The checker connects to this URL's host
    /// and port only.
    public var url: String
    /// PEM file of trusted roots for a private CA; nil uses the system trust store (what Apple's servers do).
    public var trustedCAFile: String?
    /// Bound on each network step: connect, handshake, and the probe's response. Default 10 s.
    public var timeout: Duration = .seconds(10)
    /// A probe answered more slowly than this is a warning: Apple's sender has its own timeout, and a slow
    /// rejection of a bad request predicts slow handling of real ones. Default 1 s.
    public var slowResponseThreshold: Duration = .seconds(1)
    /// A certificate expiring within this many days is a warning. Default 30 (renewal tooling such as ACME
    /// clients renews at 30 days left, so fewer means renewal is failing).
    public var expiryWarningDays: Int = 30

    public init(url: String, trustedCAFile: String? = nil, timeout: Duration = .seconds(10)) {
        self.url = url
        self.trustedCAFile = trustedCAFile
        self.timeout = timeout
    }
}
