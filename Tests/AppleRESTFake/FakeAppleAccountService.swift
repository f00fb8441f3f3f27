import AppleNotifications
import FoundationEssentials
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools
import Synchronization
import TestSupport

/// A stand-in for Apple's Sign in with Apple REST API (`/auth/token`, `/auth/revoke`, `/auth/keys`), served
/// over TLS on loopback with a certificate from a CA made when it starts (``caFile``).
///
/// It checks what Apple checks (every client secret, see `FakeClientSecretCheck`; client IDs; codes single use
/// for five minutes; grants per client), keeps token state, answers a revoke of an unknown token with 200 like
/// Apple, signs `id_token`s RS256 with its own key published at `/auth/keys`, and records every request. Tests
/// drive it: ``issueAuthorizationCode(clientID:subject:redirectURI:)`` stands for a sign-in on a device,
/// ``invalidateAuthorizations(subject:)`` for a user ending the authorization in Settings, and
/// ``setBehaviour(_:for:)`` / ``keepsRevokedTokensValid`` inject faults.
public final class FakeAppleAccountService: Sendable {
    public struct Configuration: Sendable {
        public var teamID: String
        public var keyID: String
        /// The public half of the team's Sign in with Apple key.
        public var publicKey: P256PublicKey
        public var clientIDs: Set<String>
        /// Apple: authorization codes are valid five minutes.
        public var codeLifetimeSeconds: Int64 = 300
        /// Apple answers `expires_in` 3600.
        public var accessTokenLifetimeSeconds: Int64 = 3_600
        public var identityTokenLifetimeSeconds: Int64 = 600
        /// Signs `id_token`s; published at `/auth/keys` under ``identityKeyID``.
        public var identityKey: RSAPrivateKey = TestKeys.rsa2048
        public var identityKeyID = "fake-apple-id-1"

        public init(teamID: String, keyID: String, publicKey: P256PublicKey, clientIDs: Set<String>) {
            self.teamID = teamID
            self.keyID = keyID
            self.publicKey = publicKey
            self.clientIDs = clientIDs
        }
    }

    public let configuration: Configuration
    /// `https://127.0.0.1:<port>`.
    public let baseURL: String
    /// PEM of the CA that issued the server certificate: the client's trusted roots.
    public let caFile: String
    private let server: HTTPServer
    private let core: FakeAppleCore
    private let directory: TemporaryDirectory

    /// Starts the server on an ephemeral loopback port. `now` is the fake's clock (codes, secrets, tokens):
    /// pass the test's clock so both sides agree on time.
    public init(
        configuration: Configuration, now: @escaping @Sendable () -> Instant = FakeAppleAccountService.systemNow
    )
        throws
    {
        self.configuration = configuration
        directory = try TemporaryDirectory(prefix: "fake-apple")
        let authority = try DevelopmentCertificates.authority(commonName: "Fake Apple Test CA")
        let issued = try DevelopmentCertificates.issue(
            DevelopmentCertificates.Request(
                commonName: "127.0.0.1", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]),
            signedBy: authority)
        caFile = directory.file("ca.pem")
        let certificateFile = directory.file("server.crt")
        let keyFile = directory.file("server.key")
        try authority.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        try issued.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        try issued.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)

        let core = FakeAppleCore(configuration: configuration, now: now)
        self.core = core
        var serverConfiguration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        serverConfiguration.transport = .tls(
            try TLSServerContext(certificateChainFile: certificateFile, privateKeyFile: keyFile))
        serverConfiguration.lingerTimeout = .milliseconds(200)
        serverConfiguration.shutdownGracePeriod = .seconds(2)
        server = HTTPServer(configuration: serverConfiguration) { request in await core.handle(request) }
        try server.start()
        baseURL = "https://127.0.0.1:\(server.boundPort ?? 0)"
    }

    /// Stops the server; in-flight requests get a short grace period.
    public func stop() async { await server.shutdown() }

    public static let systemNow: @Sendable () -> Instant = {
        Instant(millisecondsSinceEpoch: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

    // MARK: Driving the fake

    /// A sign-in on a device: a fresh code for `subject` under `clientID` (with the `redirect_uri` of a web
    /// authorization).
    public func issueAuthorizationCode(clientID: String, subject: String, redirectURI: String? = nil) -> String {
        core.state.withLock { state in
            state.ledger.issueCode(clientID: clientID, subject: subject, redirectURI: redirectURI, at: core.now())
        }
    }

    /// A sign-in whose code the app exchanged itself: the refresh token it then holds for `subject`.
    public func issueRefreshToken(clientID: String, subject: String) -> String? {
        core.state.withLock { state in
            let now = core.now()
            let code = state.ledger.issueCode(clientID: clientID, subject: subject, redirectURI: nil, at: now)
            guard
                case .success(let issued) = state.ledger.exchange(
                    code: code, clientID: clientID, redirectURI: nil, at: now)
            else { return nil }
            return issued.refreshToken
        }
    }

    /// The user ends every authorization of `subject` outside the app (Settings, deleting the Apple Account):
    /// refresh grants fail from now on, and no notification is sent. Returns how many grants ended.
    @discardableResult
    public func invalidateAuthorizations(subject: String) -> Int {
        core.state.withLock { $0.ledger.invalidate(subject: subject, at: core.now()) }
    }

    /// How `endpoint` answers from now on.
    public func setBehaviour(_ behaviour: FakeAppleBehaviour, for endpoint: FakeAppleEndpoint) {
        core.state.withLock { $0.behaviours[endpoint] = behaviour }
    }

    /// While true, `/auth/revoke` answers 200 but ends nothing: the "revocation unverified" case.
    public var keepsRevokedTokensValid: Bool {
        get { core.state.withLock { $0.keepsRevokedTokensValid } }
        set { core.state.withLock { $0.keepsRevokedTokensValid = newValue } }
    }

    /// Claims replaced (or removed, with nil) in every `id_token` issued from now on: another `sub`, `aud`, `iss`
    /// or `exp` for the verifier tests.
    public func overrideIdentityTokenClaims(_ overrides: [String: JSONValue?]) {
        core.state.withLock { $0.identityClaimOverrides = overrides }
    }

    // MARK: Observing the fake

    /// Every request so far, in arrival order.
    public var requests: [FakeAppleRequest] { core.state.withLock { $0.requests } }

    public func requests(to endpoint: FakeAppleEndpoint) -> [FakeAppleRequest] {
        requests.filter { $0.endpoint == endpoint }
    }

    /// The refresh tokens issued for `subject`, oldest first.
    public func refreshTokens(subject: String) -> [String] {
        core.state.withLock { $0.ledger.grants.filter { $0.subject == subject }.map(\.refreshToken) }
    }

    public func isActive(refreshToken: String) -> Bool {
        core.state.withLock { $0.ledger.isActive(refreshToken: refreshToken) }
    }

    public func isActive(accessToken: String) -> Bool {
        core.state.withLock { $0.ledger.isActive(accessToken: accessToken, at: core.now()) }
    }

    /// The key set served at `/auth/keys`.
    public var jwks: JWKSet { core.jwks }
}
