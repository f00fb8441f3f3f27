import SharedSignals

/// `apps[i].signals[j].stream`: how `lifecycle signals stream …` reaches the transmitter's stream management
/// (SSF 1.0 §8, or Google's RISC API) and what it asks for. `serve` needs none of it for push delivery; for
/// poll delivery (RFC 8936) its poll worker reads the poll endpoint, the bearer token and the poll settings.
public struct SignalStreamConfiguration: Sendable, Hashable {
    /// How the transmitter delivers (SSF 1.0 §8.1.1 `delivery.method`).
    public enum Delivery: String, Sendable, Hashable {
        /// RFC 8935: the transmitter POSTs each SET to ``SignalStreamConfiguration/endpointURL``.
        case push
        /// RFC 8936: the receiver fetches SETs from an endpoint the transmitter names.
        case poll

        /// The SSF 1.0 delivery-method URI.
        public var uri: String {
            switch self {
            case .push: "urn:ietf:rfc:8935"
            case .poll: "urn:ietf:rfc:8936"
            }
        }
    }

    /// The transmitter's configuration metadata (SSF 1.0 §7.2): by default `/.well-known/ssf-configuration`
    /// inserted between the issuer's host and path, Google's `risc-configuration` for `google-risc`.
    public var discovery: String
    public var delivery: Delivery = .push
    /// The public URL of the provider's push path that the transmitter is given (`delivery.endpoint_url`);
    /// required to create or update a push stream.
    public var endpointURL: String?
    /// The transmitter's `stream_id` of this receiver's stream; none: the one stream the transmitter lists.
    public var streamID: String?
    /// `ssf`: the file holding the bearer token of the transmitter's management API (SSF 1.0 §8 leaves the
    /// authorisation to the transmitter; OAuth 2.0 bearer tokens are usual).
    public var tokenFile: String?
    /// `google-risc`: the service account's JSON key file (`client_email`, `private_key_id`, `private_key`)
    /// whose self-signed JWT authorises the RISC API (Google's Cross-Account Protection guide).
    public var serviceAccountFile: String?
    /// `google-risc`: the RISC API, `https://risc.googleapis.com` unless a stand-in is given.
    public var googleAPI: String = SignalStreamConfiguration.googleAPI
    /// Each call to the transmitter gives up after this long. Default 10.
    public var timeoutSeconds: Int = 10
    /// Poll delivery: the transmitter's poll endpoint (RFC 8936 §2); nil: the `delivery.endpoint_url` of the
    /// stream configuration the transmitter holds (SSF 1.0 §8.1.1: for poll the transmitter supplies it), read
    /// by the poll worker when it starts.
    public var pollURL: String?
    /// Poll delivery: `maxEvents` of each poll (RFC 8936 §2.1). Default 100.
    public var maxEvents: Int = 100
    /// Poll delivery: the wait after a poll that returned no SET and no `moreAvailable`. Default 10 000.
    public var pollIntervalMilliseconds: Int = 10_000
    /// Poll delivery: the longest wait after failed polls (the wait doubles from `pollIntervalMilliseconds`
    /// with each failure in a row). Default 300 000.
    public var pollBackoffMaxMilliseconds: Int = 300_000
    /// Poll delivery: the largest poll answer read; a larger one is a failed poll. Default 4 MiB.
    public var pollMaxResponseBytes: Int = 4 << 20

    public static let googleAPI = "https://risc.googleapis.com"
    public static let googleDiscovery = "https://accounts.google.com/.well-known/risc-configuration"

    public init(discovery: String) { self.discovery = discovery }

    /// SSF 1.0 §7.2: `https://host/path` → `https://host/.well-known/ssf-configuration/path` (no trailing `/`).
    public static func discoveryURL(issuer: String, profile: SignalProfile) -> String {
        if profile == .googleRISC { return googleDiscovery }
        let scheme = "https://"
        guard issuer.hasPrefix(scheme) else { return issuer }
        let rest = issuer.dropFirst(scheme.count)
        let host = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(host.count))
        while path.hasSuffix("/") { path.removeLast() }
        return scheme + host + "/.well-known/ssf-configuration" + path
    }
}
