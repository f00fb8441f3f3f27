import LifecycleCore
import SharedSignals

/// One non-Apple identity provider of an app (`apps[i].signals[j]`): a transmitter of Security Event Tokens
/// pushed to the public listener (RFC 8935) at ``path``. Its accounts are the app's accounts keyed by
/// (provider, subject) (``ProviderSubject``), beside the app's Apple accounts.
public struct SignalProviderConfiguration: Sendable, Hashable {
    /// `ssf` or `google-risc` (``SignalProfile``).
    public var profile: SignalProfile
    /// Unique within the app; the first part of its accounts' keys (lowercase letters, digits, `-`, `_`).
    public var id: String
    /// The transmitter's `iss`, compared exactly. Default for `google-risc`: `https://accounts.google.com/`.
    public var issuer: String
    /// `https://…` key set URL, or a path (resolved) to a JWKS file. Default for `google-risc`: Google's
    /// `jwks_uri`; for `ssf` empty: the key set is the one the discovery document names
    /// (``keysFromDiscovery``).
    public var jwks: String
    /// The `aud` values accepted: for Google, the app's OAuth client IDs.
    public var audiences: [String]
    /// Where the transmitter pushes, on the public listener. Default `/signals/<app>/<id>`.
    public var path: String
    /// File holding the bearer token the transmitter sends in `Authorization` (SSF 1.0 `authorization_header`
    /// of the push delivery), overridden by ``pushTokenVariable(app:)``; with neither, pushes need none (the
    /// SET's signature still authenticates it).
    public var authorizationSecretFile: String?
    /// Event-type URIs this receiver accepts (SSF `events_requested`); nil accepts every type. An event of
    /// another type is refused with `access_denied`; stream events (verification, stream-updated) always pass.
    public var events: [String]?
    /// Clock skew tolerated on `iat` (and `exp` where checked), in seconds. Default 60.
    public var leewaySeconds: Int = 60
    /// A `kid` missing from the cached key set triggers at most one fetch per this interval. Default 300.
    public var jwksMinRefreshSeconds: Int = 300
    public var jwksFetchTimeoutSeconds: Int = 10
    /// Where and how `lifecycle signals stream …` manages the transmitter's stream.
    public var stream: SignalStreamConfiguration
    /// How the app's own records (`records`, with a `provider` field) name this provider's accounts: the
    /// subject format of its SETs. Default `iss_sub` under ``issuer``, as Google's RISC sends.
    public var recordSubject: ProviderRecordSubject

    /// No `jwks` is configured: `serve` reads the key set from the `jwks_uri` of the discovery document at
    /// `stream.discovery` (SSF 1.0 §7.1), whose `issuer` must be ``issuer``.
    public var keysFromDiscovery: Bool { jwks.isEmpty }

    public init(
        profile: SignalProfile, id: String, issuer: String, jwks: String, audiences: [String], path: String,
        authorizationSecretFile: String? = nil, events: [String]? = nil
    ) {
        self.profile = profile
        self.id = id
        self.issuer = issuer
        self.jwks = jwks
        self.audiences = audiences
        self.path = path
        self.authorizationSecretFile = authorizationSecretFile
        self.events = events
        stream = SignalStreamConfiguration(
            discovery: SignalStreamConfiguration.discoveryURL(issuer: issuer, profile: profile))
        recordSubject = .issSub(issuer: issuer)
    }
}

extension SignalProviderConfiguration {
    /// `LIFECYCLE_SIGNALS_TOKEN_<APP>_<ID>` (upper-cased, `-` as `_`): the push bearer token, set or not
    /// beside ``authorizationSecretFile``. `serve` asks pushes for it and `signals stream` hands it to the
    /// transmitter, so both read it by this one name.
    public func pushTokenVariable(app: String) -> String { "LIFECYCLE_SIGNALS_TOKEN_" + variableSuffix(app: app) }

    /// `LIFECYCLE_SIGNALS_MANAGEMENT_TOKEN_<APP>_<ID>`: the stream management (and poll) bearer token, beside
    /// `stream.tokenFile`.
    public func managementTokenVariable(app: String) -> String {
        "LIFECYCLE_SIGNALS_MANAGEMENT_TOKEN_" + variableSuffix(app: app)
    }

    private func variableSuffix(app: String) -> String {
        (app + "_" + id).uppercased().replacingOccurrences(of: "-", with: "_")
    }
}
