import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// jwt_tool's attack catalogue (`Tests/OutsideClients/jwt_attacks.py`, tokens forged with the `cryptography`
/// package, no code shared with the service) against the real `lifecycle serve`: both endpoints that take
/// signed tokens from outside, Apple's notifications and pushed Security Event Tokens. Every attack is refused
/// with a 4xx, the attacker's `jku`/`x5u` is never fetched, an honest token sent after them all is accepted,
/// and the process is alive at the end.
@Suite(
    "jwt_tool's attacks against a real serve process",
    .enabled(if: OutsideTools.has("python"), "\(OutsideTools.missingReason)"))
struct JWTAttackTests {
    @Test("Apple's notification endpoint refuses every attack and stores only the honest notification")
    func appleNotifications() async throws {
        let harness = try ServiceHarness()
        let publicPort = try await WebhookReceiver.unusedPort()
        try harness.setPublicPort(publicPort)
        let service = try LifecycleProcess.serve(configurationFile: harness.configurationFile)
        defer { service.kill(signal: SIGKILL) }
        try await LifecycleProcess.waitUntilReady(port: publicPort)

        let keyFile = harness.directory.file("signing-key.pem")
        try Data(try harness.tokens.key.pemPKCS8()).write(to: URL(fileURLWithPath: keyFile))
        let summary = try await Self.attack(
            url: "http://127.0.0.1:\(publicPort)/apple/notifications", keyFile: keyFile,
            kid: harness.tokens.keyID, audience: ServiceHarness.clientID, issuer: "https://appleid.apple.com",
            form: "apple", in: harness.directory.path)
        #expect(summary?["control"] == .integer(200))

        let health = try await HTTPClient(host: "127.0.0.1", port: publicPort).get("/healthz")
        #expect(health.status == 200)
        service.kill(signal: SIGTERM)
        #expect(await service.waitForExit() == 0)
        let stored = try StoreFile.count(
            "SELECT count(*) FROM notifications", in: harness.directory.file("lifecycle.sqlite"))
        #expect(stored == 1, "only the honest notification is stored")
    }

    @Test("a Shared Signals push endpoint refuses every attack and accepts the honest SET after them")
    func pushedSecurityEvents() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await SecurityEventEndpointTests.start(fake)
        let keyFile = fixture.directory.file("transmitter-key.pem")
        try Data(try fake.tokens.key.pemPKCS8()).write(to: URL(fileURLWithPath: keyFile))
        let summary = try await Self.attack(
            url: "http://127.0.0.1:\(fixture.publicPort)\(SecurityEventEndpointTests.path)", keyFile: keyFile,
            kid: FakeTransmitter.keyID, audience: SecurityEventEndpointTests.audience, issuer: fake.issuer,
            form: "set", bearer: SecurityEventEndpointTests.bearer, trustedHTTPS: fake.baseURL + "/attacker",
            ecKeyID: FakeTransmitter.ecKeyID, in: fixture.directory.path)
        #expect(summary?["control"] == .integer(202))
        // The transmitter's own TLS host, whose CA the service trusts, was never asked for the named keys.
        #expect(fake.requestCount("/attacker/jwks.json") == 0)
        #expect(fake.requestCount("/attacker/cert.pem") == 0)
        #expect(try await fixture.publicClient().get("/healthz").status == 200)
        #expect(await fixture.stop() == [0])
        await fake.stop()
    }

    /// Runs the catalogue and checks its verdict; answers its summary.
    static func attack(
        url: String, keyFile: String, kid: String, audience: String, issuer: String, form: String,
        bearer: String? = nil, trustedHTTPS: String? = nil, ecKeyID: String? = nil, in directory: String
    ) async throws -> JSONValue? {
        try #require(OutsideTools.has("python"), "\(OutsideTools.missingReason)")
        var arguments = [
            OutsideTools.scripts.appendingPathComponent("jwt_attacks.py").path, "--url", url, "--key", keyFile,
            "--kid", kid, "--aud", audience, "--issuer", issuer, "--form", form,
        ]
        if let bearer { arguments += ["--bearer", bearer] }
        if let trustedHTTPS { arguments += ["--trusted-https", trustedHTTPS] }
        if let ecKeyID { arguments += ["--ec-kid", ecKeyID] }
        let run = try await OutsideTools.run("python", arguments, in: directory)
        let summary = JSONValue.parseIfValid(Array(run.output.utf8))
        #expect(run.status == 0, "jwt_attacks.py:\n\(run.output.suffix(6000))")
        #expect(summary?["accepted"]?.objectValue?.isEmpty == true, "\(run.output.suffix(6000))")
        #expect(
            summary?["unexpectedReasons"]?.objectValue?.isEmpty == true,
            "refused for another reason than the attack's: \(summary?["unexpectedReasons"] ?? .null)")
        #expect(summary?["attackerFetches"] == .array([]), "the attacker's jku or x5u was fetched")
        #expect(summary?["httpsConnections"] == .integer(0), "an https jku or x5u host was contacted")
        let expected = form == "apple" ? 36 : 40
        #expect(summary?["attacks"]?.objectValue?.count == expected, "\(run.output.suffix(2000))")
        if ecKeyID != nil {
            // Under the transmitter's own P-256 key the psychic signature reaches ECDSA, and fails there.
            #expect(
                summary?["codes"]?["ES256 psychic signature r = s = 0 under the service's P-256 kid"]
                    == "bad_signature",
                "\(run.output.suffix(2000))")
        }
        return summary
    }
}
