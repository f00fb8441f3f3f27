import Foundation
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// An `ssf` provider configured without `jwks`: the real `lifecycle serve` reads the key set named by the
/// transmitter's discovery document (SSF 1.0 §7.1 `jwks_uri`), as the fake transmitter on loopback serves it.
@Suite("Shared Signals keys from the discovery document", .serialized)
struct SecurityEventDiscoveryTests {
    typealias Endpoint = SecurityEventEndpointTests

    static func start(_ fake: FakeTransmitter, discovery: String? = nil) async throws -> ServeFixture {
        var provider: JSONObject = [
            "provider": "ssf", "id": "idp", "issuer": .string(fake.issuer), "audience": [.string(Endpoint.audience)],
        ]
        if let discovery { provider["stream"] = ["discovery": .string(discovery)] }
        var app = ServeFixture.app().objectValue ?? [:]
        app["signals"] = [.object(provider)]
        let fixture = try await ServeFixture(apps: [.object(app)], environment: ["SSL_CERT_FILE": fake.caFile])
        _ = try await fixture.start()
        return fixture
    }

    static func purge(_ fake: FakeTransmitter, _ fixture: ServeFixture, _ sub: String) async throws -> Int {
        let set = fake.set(
            event: Endpoint.risc + "account-purged", subject: FakeTransmitter.issSub(sub, issuer: fake.issuer),
            audience: .string(Endpoint.audience))
        return try await fake.push(set, to: fixture.publicClient(), path: Endpoint.path).status
    }

    @Test("without jwks the keys are the discovery document's jwks_uri: a SET verifies and is stored")
    func keysFromDiscovery() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        #expect(try await Self.purge(fake, fixture, "user-discovered") == 202)
        let account = try await Endpoint.account(fixture, Endpoint.key("idp", "user-discovered", issuer: fake.issuer))
        #expect(account.json?["state"] == "deleted", "\(account)")
        #expect(fake.requestCount("/.well-known/ssf-configuration") >= 1)
        #expect(fake.requestCount("/jwks") >= 1)
        await fake.stop()
    }

    @Test("a discovery document that cannot be read leaves no keys: pushes are answered 503 and serve runs on")
    func unreadableDiscovery() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake, discovery: fake.baseURL + "/missing/.well-known/ssf-configuration")
        #expect(try await Self.purge(fake, fixture, "user-undiscovered") == 503)
        #expect(fake.requestCount("/jwks") == 0)
        let ready = try await fixture.publicClient().get("/readyz")
        #expect(ready.status == 200, "one transmitter down does not take the listener out")
        #expect(JSONValue.parseIfValid(ready.body)?["signalKeys"]?["shop/idp"] == "none loaded")
        await fake.stop()
    }

    /// 100,000 combining marks on one letter, a line separator, a space: what a hostile transmitter says.
    static let hostileText = "a" + String(repeating: "\u{0301}", count: 100_000) + "\u{2028}forged line "

    @Test(
        "a transmitter's hostile documents reach the 503 and the log quoted, bounded and on one line",
        arguments: ["jwks_uri", "err"])
    func hostileDocumentsAreBounded(member: String) async throws {
        let fake = try FakeTransmitter()
        switch member {
        case "jwks_uri":
            // A jwks_uri that is not a URL the service will fetch: the refusal used to quote it whole.
            fake.answer(
                "/hostile/.well-known/ssf-configuration",
                body: [
                    "spec_version": "1_0", "issuer": .string(fake.issuer),
                    "jwks_uri": .string(fake.baseURL + "/" + Self.hostileText),
                ])
        default:
            // An error answer whose code is one grapheme of 200 KB: cut by Characters, it stayed whole.
            fake.answer(
                "/hostile/.well-known/ssf-configuration", status: .internalServerError,
                body: ["err": .string(Self.hostileText)])
        }
        let fixture = try await Self.start(fake, discovery: fake.baseURL + "/hostile/.well-known/ssf-configuration")
        let set = fake.set(
            event: Endpoint.risc + "account-purged",
            subject: FakeTransmitter.issSub("user-hostile", issuer: fake.issuer),
            audience: .string(Endpoint.audience))
        let pushed = try await fake.push(set, to: fixture.publicClient(), path: Endpoint.path)
        #expect(pushed.status == 503, "\(pushed)")
        let description = pushed.json?["description"]?.stringValue ?? ""
        #expect(description.utf8.count <= 1200, "503 description of \(description.utf8.count) bytes")
        #expect(!description.unicodeScalars.contains("\u{2028}"))
        #expect(await fixture.stop() == [0])

        let lines = fixture.log.split(separator: "\n")
        let failures = lines.filter { $0.contains("signal.keys_load_failed") }
        #expect(!failures.isEmpty, "no signal.keys_load_failed line:\n\(fixture.log.prefix(4000))")
        let longest = lines.map(\.utf8.count).max() ?? 0
        #expect(longest <= 8192, "a log line of \(longest) bytes")
        #expect(!fixture.log.unicodeScalars.contains("\u{2028}"), "a raw line separator reached the log")
        await fake.stop()
    }
}
