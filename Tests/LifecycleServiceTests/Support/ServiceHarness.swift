import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools
import Synchronization
import TestSupport

@testable import LifecycleEngine
@testable import LifecycleServer
@testable import LifecycleStore

/// A real service on loopback: a temporary directory with a JWKS of the test key, a configuration file with
/// ephemeral ports, a real SQLite file, and a log captured in memory so tests can check what it contains.
final class ServiceHarness: Sendable {
    static let clientID = "com.example.shop"
    static let appID = "shop"

    let directory: TemporaryDirectory
    let configurationFile: String
    let logLines = Mutex<[String]>([])
    let runtime: Mutex<ServiceRuntime?> = Mutex(nil)
    let tokens = TestTokenFactory()

    /// The secret the app's webhook receiver verifies signatures with.
    static let webhookSecret = "whsec_" + Data("test-webhook-secret-32-bytes-long".utf8).base64EncodedString()

    /// How the public listener is reached: plain HTTP (behind a TLS-terminating proxy) or HTTPS served itself.
    enum Transport: String, Sendable, CaseIterable, CustomStringConvertible {
        case plain, tls
        var description: String { rawValue }
    }

    let transport: Transport
    /// The admin listener's bearer token, when the harness runs one.
    let adminToken: String?
    /// The database this harness created (`store: .postgres`), dropped in `deinit`.
    let postgresDatabase: PostgresTestDatabase?

    deinit { postgresDatabase?.dropBlocking() }

    /// With `adminToken`, the admin listener runs on an ephemeral loopback port with that token in a file.
    /// With `.tls`, a test CA and a localhost certificate are issued and the public listener serves HTTPS.
    /// `storageURL` replaces the SQLite file in the directory (a `postgres://` URL of a
    /// ``PostgresTestDatabase``); `store: .postgres` creates such a database for this harness and drops it
    /// when the harness goes away.
    init(
        extraConfiguration: JSONObject = [:], webhookURL: String? = nil, adminToken: String? = nil,
        transport: Transport = .plain, storageURL: String? = nil, store: HarnessStore = .sqlite
    ) throws {
        directory = try TemporaryDirectory()
        if store == .postgres, let server = HarnessStore.postgresServer {
            postgresDatabase = try PostgresTestDatabase.createBlocking(serverURL: server)
        } else {
            postgresDatabase = nil
        }
        let storageURL = storageURL ?? postgresDatabase?.url
        self.transport = transport
        self.adminToken = adminToken
        try Data(tokens.jwks.encoded()).write(to: URL(fileURLWithPath: directory.file("jwks.json")))
        var app: JSONObject = ["id": .string(Self.appID), "clientIds": [.string(Self.clientID)]]
        if let webhookURL {
            try Data(Self.webhookSecret.utf8).write(to: URL(fileURLWithPath: directory.file("webhook-secret")))
            app["webhook"] = ["url": .string(webhookURL), "secretFile": "webhook-secret"]
        }
        var config: JSONObject = [
            "storage": ["url": .string(storageURL ?? "sqlite:lifecycle.sqlite")],
            "public": ["host": "127.0.0.1", "port": 0],
            "admin": ["enabled": false],
            "apple": ["jwks": "jwks.json"],
            "apps": [.object(app)],
            "pseudonymKeyFile": "secrets/pseudonym.key",
        ]
        if let adminToken {
            try FileManager.default.createDirectory(
                atPath: directory.file("secrets"), withIntermediateDirectories: true)
            try Data((adminToken + "\n").utf8).write(to: URL(fileURLWithPath: directory.file("secrets/admin-token")))
            config["admin"] = ["host": "127.0.0.1", "port": 0, "tokenFile": "secrets/admin-token"]
        }
        if transport == .tls {
            let authority = try DevelopmentCertificates.authority(commonName: "Harness CA")
            let leaf = try DevelopmentCertificates.issue(
                DevelopmentCertificates.Request(
                    commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]),
                signedBy: authority)
            try authority.certificatePEM.write(toFile: directory.file("ca.pem"), atomically: true, encoding: .utf8)
            try leaf.certificatePEM.write(toFile: directory.file("server.crt"), atomically: true, encoding: .utf8)
            try leaf.privateKeyPEM.write(toFile: directory.file("server.key"), atomically: true, encoding: .utf8)
            config["public"] = [
                "host": "127.0.0.1", "port": 0,
                "tls": ["certificateFile": "server.crt", "privateKeyFile": "server.key"],
            ]
        }
        for member in extraConfiguration { config[member.key] = member.value }
        configurationFile = directory.file("lifecycle.json")
        try Data(JSONValue.object(config).serialized(pretty: true).utf8).write(
            to: URL(fileURLWithPath: configurationFile))
    }

    var configuration: ServiceConfiguration {
        get throws { try ServiceConfiguration.load(file: configurationFile, environment: [:]) }
    }

    /// Opens the store and starts the listeners; returns the running service.
    @discardableResult
    func start() async throws -> ServiceRuntime {
        let context = try await ServiceContext.open(
            configuration: try configuration, logSink: { [self] line in logLines.withLock { $0.append(line) } })
        let service = ServiceRuntime(context: context, configurationFile: configurationFile, environment: [:])
        try await service.start()
        runtime.withLock { $0 = service }
        return service
    }

    func stop() async {
        if let service = runtime.withLock({ $0 }) { await service.stop() }
        runtime.withLock { $0 = nil }
    }

    var client: HTTPClient {
        get throws {
            guard let port = runtime.withLock({ $0?.publicPort }) else { throw HarnessError.notRunning }
            return publicClient(port: port)
        }
    }

    func publicClient(port: Int) -> HTTPClient {
        HTTPClient(
            host: "127.0.0.1", port: port, timeout: .seconds(10),
            tls: transport == .tls
                ? TLSClientConfiguration(serverName: "localhost", trustedCAFile: directory.file("ca.pem")) : nil)
    }

    /// A client of the admin listener (only when the harness was made with an admin token).
    var adminClient: HTTPClient {
        get throws {
            guard let port = runtime.withLock({ $0?.adminPort }) else { throw HarnessError.notRunning }
            return HTTPClient(host: "127.0.0.1", port: port, timeout: .seconds(10))
        }
    }

    /// `GET /metrics` on the admin listener with the bearer token, as Prometheus scrapes it (the harness must
    /// have been made with an admin token).
    func metrics() async throws -> String {
        guard let adminToken else { throw HarnessError.notRunning }
        let response = try await adminClient.send(
            HTTPClientRequest(
                method: "GET", target: "/metrics", headers: ["Authorization": "Bearer \(adminToken)"], body: []))
        return String(decoding: response.body, as: UTF8.self)
    }

    /// A notification as Apple sends it, signed now by the test key.
    func body(
        type: String, subject: String = TestFixtures.subject, eventTime: Instant? = nil, jti: String? = nil,
        audience: String = ServiceHarness.clientID, extra: JSONObject = [:]
    ) -> [UInt8] {
        let now = SystemClock().now()
        let event = TestTokenFactory.event(
            type: type, subject: subject, eventTime: .integer((eventTime ?? now).millisecondsSinceEpoch), extra: extra)
        var overrides: [String: JSONValue?] = [:]
        if let jti { overrides["jti"] = .string(jti) } else { overrides["jti"] = .string(NotificationSigner.makeJTI()) }
        let claims = TestTokenFactory.claims(event: event, audience: audience, issuedAt: now, overrides: overrides)
        return NotificationBody.encode(jws: tokens.token(claims: claims))
    }

    /// Fixes the public port in the configuration file (for a service run as a separate process).
    func setPublicPort(_ port: Int) throws {
        guard
            var config = JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: configurationFile)))?
                .objectValue
        else { throw HarnessError.notRunning }
        config["public"] = ["host": "127.0.0.1", "port": .integer(Int64(port))]
        try Data(JSONValue.object(config).serialized(pretty: true).utf8).write(
            to: URL(fileURLWithPath: configurationFile))
    }

    /// Fixes the admin port in the configuration file (for a service run as a separate process); the harness
    /// must have been made with an admin token.
    func setAdminPort(_ port: Int) throws {
        guard
            var config = JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: configurationFile)))?
                .objectValue
        else { throw HarnessError.notRunning }
        config["admin"] = ["host": "127.0.0.1", "port": .integer(Int64(port)), "tokenFile": "secrets/admin-token"]
        try Data(JSONValue.object(config).serialized(pretty: true).utf8).write(
            to: URL(fileURLWithPath: configurationFile))
    }

    func post(
        _ body: [UInt8], path: String = "/apple/notifications", port: Int? = nil
    ) async throws -> (status: Int, json: JSONValue?) {
        let client = try port.map { publicClient(port: $0) } ?? self.client
        let response = try await client.post(path, headers: ["Content-Type": "application/json"], body: body)
        return (response.status, JSONValue.parseIfValid(response.body))
    }

    var log: String { logLines.withLock { $0.joined(separator: "\n") } }

    enum HarnessError: Error { case notRunning }
}
