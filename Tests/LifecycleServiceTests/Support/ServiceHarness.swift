import AppleNotifications
import Foundation
import HTTP
import LifecycleCore
import LifecycleCrypto
import Synchronization
import TestSupport

@testable import LifecycleService

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

    init(extraConfiguration: JSONObject = [:]) throws {
        directory = try TemporaryDirectory()
        try Data(tokens.jwks.encoded()).write(to: URL(fileURLWithPath: directory.file("jwks.json")))
        var config: JSONObject = [
            "storage": ["url": "sqlite:lifecycle.sqlite"],
            "public": ["host": "127.0.0.1", "port": 0],
            "admin": ["enabled": false],
            "apple": ["jwks": "jwks.json"],
            "apps": [["id": .string(Self.appID), "clientIds": [.string(Self.clientID)]]],
            "pseudonymKeyFile": "secrets/pseudonym.key",
        ]
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
        let service = ServiceRuntime(context: context, configurationFile: configurationFile)
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
            return HTTPClient(host: "127.0.0.1", port: port, timeout: .seconds(10))
        }
    }

    /// A notification as Apple sends it, signed now by the test key.
    func body(
        type: String, subject: String = TestFixtures.subject, eventTime: Instant? = nil, jti: String? = nil,
        audience: String = ServiceHarness.clientID, extra: JSONObject = [:]
    ) -> [UInt8] {
        let now = SystemWallClock().now()
        let event = TestTokenFactory.event(
            type: type, subject: subject, eventTime: .integer((eventTime ?? now).millisecondsSinceEpoch), extra: extra)
        var overrides: [String: JSONValue?] = [:]
        if let jti { overrides["jti"] = .string(jti) } else { overrides["jti"] = .string(NotificationSigner.makeJTI()) }
        let claims = TestTokenFactory.claims(event: event, audience: audience, issuedAt: now, overrides: overrides)
        return NotificationBody.encode(jws: tokens.token(claims: claims))
    }

    func post(_ body: [UInt8], path: String = "/apple/notifications") async throws -> (status: Int, json: JSONValue?) {
        let response = try await client.post(path, headers: ["Content-Type": "application/json"], body: body)
        return (response.status, JSONValue.parseIfValid(response.body))
    }

    var log: String { logLines.withLock { $0.joined(separator: "\n") } }

    enum HarnessError: Error { case notRunning }
}
