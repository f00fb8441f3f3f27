/// How the REST client reaches Apple.
public struct AppleRESTConfiguration: Hashable, Sendable {
    /// Default `https://appleid.apple.com`.
    public var baseURL: AppleBaseURL
    /// PEM file of trusted roots; nil trusts the system store. Tests point it at the CA of a local stand-in.
    public var trustedCAFile: String?
    /// Bounds the TCP connect and each wait of the TLS handshake, then the request/response exchange (checked
    /// between reads, each read waiting at most this long), so a black-holed connection fails within a small
    /// multiple of it. Default 10 s: Apple answers in well under a second, and a worker must not hang.
    public var timeout: Duration
    /// Largest response body read. Apple's answers are under 4 KiB; default 64 KiB.
    public var maximumResponseBytes: Int
    /// The `User-Agent` field.
    public var userAgent: String

    public init(
        baseURL: AppleBaseURL = .apple, trustedCAFile: String? = nil, timeout: Duration = .seconds(10),
        maximumResponseBytes: Int = 65_536, userAgent: String = "AccountLifecycle"
    ) {
        self.baseURL = baseURL
        self.trustedCAFile = trustedCAFile
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
        self.userAgent = userAgent
    }
}
