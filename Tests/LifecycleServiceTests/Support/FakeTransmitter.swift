import AppleNotifications
import FoundationEssentials
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools
import Synchronization
import TestSupport

/// A stand-in for an OpenID Shared Signals transmitter (SSF 1.0), served over TLS on loopback with a
/// certificate from a CA made when it starts (``caFile``): its discovery document at
/// `/.well-known/ssf-configuration` (issuer, `jwks_uri`, push delivery) and its key set at `/jwks`, both
/// counted. It signs SETs (RFC 8417) RS256 with its own key and pushes them (RFC 8935) to a receiver, or hands
/// them out at its poll endpoint (RFC 8936, ``FakePollEndpoint``).
final class FakeTransmitter: Sendable {
    static let keyID = "fake-transmitter-1"
    static let ecKeyID = "fake-transmitter-ec-1"
    /// Signs ES256 SETs; published at `/jwks` beside the RSA key.
    static let ecKey: P256PrivateKey = {
        do { return try P256PrivateKey.generate() } catch { fatalError("no P-256 key: \(error)") }
    }()
    static let pushDelivery = "urn:ietf:rfc:8935"
    static let pollDelivery = "urn:ietf:rfc:8936"

    /// `https://127.0.0.1:<port>/`: the `iss` of every SET it signs.
    let issuer: String
    let baseURL: String
    let caFile: String
    let tokens = TestTokenFactory(key: TestKeys.rsa2048, keyID: FakeTransmitter.keyID)
    /// Its stream management (SSF 1.0 §8 and Google's RISC API).
    let streams = FakeStreamService()
    /// Its poll endpoint (RFC 8936) at ``FakePollEndpoint/path``.
    let poll = FakePollEndpoint()
    private let server: HTTPServer
    private let directory: TemporaryDirectory
    private let requests: RequestPaths

    init() throws {
        directory = try TemporaryDirectory(prefix: "fake-transmitter")
        let authority = try DevelopmentCertificates.authority(commonName: "Fake Transmitter Test CA")
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
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.transport = .tls(
            try TLSServerContext(certificateChainFile: certificateFile, privateKeyFile: keyFile))
        configuration.lingerTimeout = .milliseconds(200)
        configuration.shutdownGracePeriod = .seconds(2)
        var keySet = TestTokenFactory(key: TestKeys.rsa2048, keyID: FakeTransmitter.keyID).jwks
        keySet.ecKeys = [try ECJWK(keyID: FakeTransmitter.ecKeyID, publicKey: FakeTransmitter.ecKey.publicKey)]
        let jwks = keySet.encoded()
        let requests = RequestPaths()
        self.requests = requests
        let streams = self.streams
        let poll = self.poll
        server = HTTPServer(configuration: configuration) { request in
            requests.paths.withLock { $0.append(request.path) }
            if let answer = requests.answers.withLock({ $0[request.path] }) {
                return .json(bytes: answer.body, status: answer.status)
            }
            switch request.path {
            case "/jwks":
                return .json(bytes: jwks)
            case FakePollEndpoint.path:
                return poll.handle(request)
            case "/.well-known/ssf-configuration":
                let url = requests.base.withLock { $0 }
                let document: JSONValue = [
                    "spec_version": "1_0", "issuer": .string(url + "/"), "jwks_uri": .string(url + "/jwks"),
                    "delivery_methods_supported": [
                        .string(FakeTransmitter.pushDelivery), .string(FakeTransmitter.pollDelivery),
                    ],
                    "configuration_endpoint": .string(url + "/ssf/stream"),
                    "verification_endpoint": .string(url + "/ssf/verify"),
                ]
                return .json(bytes: document.encoded())
            default:
                if let answer = await streams.handle(request, base: requests.base.withLock { $0 }) { return answer }
                return .json(bytes: Array(#"{"error":"not found"}"#.utf8), status: .notFound)
            }
        }
        try server.start()
        let url = "https://127.0.0.1:\(server.boundPort ?? 0)"
        requests.base.withLock { $0 = url }
        baseURL = url
        issuer = url + "/"
        let signer: @Sendable (String, JSONObject, JSONValue, String, String?) -> [UInt8] = {
            [weak self] event, body, subject, audience, issuer in
            self?.streamEvent(event, body: body, subject: subject, audience: audience, issuer: issuer) ?? []
        }
        streams.signer.withLock { $0 = signer }
    }

    /// A SET the stream management pushes (a verification), `iss` replaced when `issuer` is given.
    private func streamEvent(
        _ event: String, body: JSONObject, subject: JSONValue, audience: String, issuer: String?
    ) -> [UInt8] {
        var overrides: [String: JSONValue?] = [:]
        if let issuer { overrides["iss"] = .string(issuer) }
        return set(event: event, body: body, subject: subject, audience: .string(audience), overrides: overrides)
    }

    func stop() async { await server.shutdown() }

    /// Answers `path` with `status` and `body` from now on, whatever the fake would have said.
    func answer(_ path: String, status: HTTPStatus = .ok, body: JSONValue) {
        requests.answers.withLock { $0[path] = (status, body.encoded()) }
    }

    /// How often a path was requested (the key set, the discovery document).
    func requestCount(_ path: String) -> Int { requests.paths.withLock { $0.filter { $0 == path }.count } }

    /// A SET of `event` (a full event-type URI) for `subject` (an RFC 9493 identifier in `sub_id`, or nil for
    /// none), `aud` `audience`, issued now, with `overrides` applied to the claims last (`nil` removes one).
    func set(
        event: String, body: JSONObject = [:], subject: JSONValue?, audience: JSONValue,
        jti: String = FakeTransmitter.makeJTI(), typ: String? = "secevent+jwt", issuedAt: Instant = SystemClock().now(),
        overrides: [String: JSONValue?] = [:], header headerOverrides: [String: JSONValue?] = [:],
        signing: TestSigning = .rs256
    ) -> [UInt8] {
        var claims: JSONObject = [
            "iss": .string(issuer), "aud": audience, "iat": .integer(issuedAt.secondsSinceEpoch), "jti": .string(jti),
            "events": .object([event: .object(body)]),
        ]
        if let subject { claims["sub_id"] = subject }
        for (name, value) in overrides { claims[name] = value }
        var header = tokens.header(overrides: headerOverrides)
        if let typ { header["typ"] = .string(typ) }
        return Array(tokens.token(header: header, claims: claims, signing: signing).utf8)
    }

    /// A SET as ``set(event:body:subject:audience:jti:typ:issuedAt:overrides:header:signing:)`` makes it, signed
    /// ES256 with the fake's P-256 key.
    func es256Set(event: String, subject: JSONValue, audience: JSONValue) throws -> [UInt8] {
        let claims: JSONValue = [
            "iss": .string(issuer), "aud": audience, "iat": .integer(SystemClock().now().secondsSinceEpoch),
            "jti": .string(Self.makeJTI()), "sub_id": subject, "events": .object([event: [:]]),
        ]
        let header: JSONValue = ["alg": "ES256", "kid": .string(Self.ecKeyID), "typ": "secevent+jwt"]
        let input = Base64URL.encode(header.encoded()) + "." + Base64URL.encode(claims.encoded())
        return Array((input + "." + Base64URL.encode(try Self.ecKey.signES256(Array(input.utf8)))).utf8)
    }

    /// Pushes `set` to `path` on the receiver's public listener as RFC 8935 §2 asks.
    func push(
        _ set: [UInt8], to client: HTTPClient, path: String, token: String? = nil,
        contentType: String = "application/secevent+jwt"
    ) async throws -> (status: Int, json: JSONValue?) {
        var headers: HTTPHeaders = ["Content-Type": contentType, "Accept": "application/json"]
        if let token { try headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await client.send(
            HTTPClientRequest(method: "POST", target: path, headers: headers, body: set))
        return (response.status, JSONValue.parseIfValid(response.body))
    }

    static func makeJTI() -> String { Hex.encode(SecureRandom.bytes(count: 12)) }

    static func issSub(_ sub: String, issuer: String) -> JSONValue {
        ["format": "iss_sub", "iss": .string(issuer), "sub": .string(sub)]
    }
}

/// The paths a fake was asked for, shared between it and its request handler.
final class RequestPaths: Sendable {
    let paths = Mutex<[String]>([])
    /// Answers set by a test for paths of its own (a hostile document), before any route of the fake.
    let answers = Mutex<[String: (status: HTTPStatus, body: [UInt8])]>([:])
    /// The fake's base URL for the discovery document, known only once the server is bound.
    let base = Mutex<String>("")
}
