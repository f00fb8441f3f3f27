import Foundation
import LifecycleDevTools
import Testing

/// README, "HTTPS from the service itself", against the real `serve` process: start-up refuses an expired
/// certificate with one line naming the file; once up, the listener speaks TLS 1.2 and 1.3 only, with AEAD
/// suites only, as a client nobody here wrote (`openssl s_client`) finds.
@Suite("serve's own TLS, as a process")
struct ServeTLSProcessTests {
    static let openssl = SystemTool.find("openssl")

    @Test("an expired certificate stops serve at start: exit 2 and one line naming the file")
    func expiredCertificateRefused() async throws {
        let fixture = try await ServeFixture(tls: true)
        let authority = try #require(fixture.authority)
        let expired = try DevelopmentCertificates.issue(
            DevelopmentCertificates.Request(
                commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"],
                validFrom: -90 * 86_400, validUntil: -86_400),
            signedBy: authority)
        try expired.certificatePEM.write(
            toFile: fixture.directory.file("server.crt"), atomically: true, encoding: .utf8)
        try expired.privateKeyPEM.write(toFile: fixture.directory.file("server.key"), atomically: true, encoding: .utf8)
        let refused = try await fixture.lifecycle(["serve", "--config", fixture.configurationFile])
        #expect(refused.status == 2, "\(refused)")
        let lines = refused.errorLines.filter { !$0.hasPrefix("{") }
        #expect(lines.count == 1, "\(refused.errors)")
        #expect(lines.first?.contains("server.crt") == true && lines.first?.lowercased().contains("expired") == true)
    }

    @Test(
        "the listener refuses TLS 1.1 and a TLS 1.2 CBC suite, and speaks TLS 1.2 and 1.3",
        .enabled(if: openssl != nil, "needs openssl (Debian package openssl)"))
    func protocolFloor() async throws {
        let openssl = try #require(Self.openssl)
        let fixture = try await ServeFixture(tls: true)
        try await fixture.start()
        let target = "127.0.0.1:\(fixture.publicPort)"
        let ca = fixture.directory.file("ca.pem")
        func handshake(_ options: [String]) async throws -> (status: Int32, output: String) {
            try await openssl.run(
                ["s_client", "-connect", target, "-CAfile", ca, "-verify_return_error", "-brief"] + options,
                timeout: .seconds(20))
        }
        // SECLEVEL=0 lets the client offer what it would not by default: the refusal must be the server's.
        let old = try await handshake(["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"])
        #expect(old.status != 0, "TLS 1.1 accepted: \(old.output)")
        // Forward secret but not AEAD (CBC with SHA-1 or SHA-256), for either kind of certificate key.
        let cbc = try await handshake([
            "-tls1_2", "-cipher",
            "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES128-SHA256:@SECLEVEL=0",
        ])
        #expect(cbc.status != 0, "a CBC suite accepted: \(cbc.output)")
        let modern = try await handshake(["-tls1_2"])
        #expect(modern.status == 0 && modern.output.contains("TLSv1.2"), "\(modern.output)")
        #expect(modern.output.contains("ECDHE") || modern.output.contains("GCM") || modern.output.contains("CHACHA20"))
        let newest = try await handshake(["-tls1_3"])
        #expect(newest.status == 0 && newest.output.contains("TLSv1.3"), "\(newest.output)")
        #expect(await fixture.stop() == [0])
    }

    @Test("lifecycle endpoint check, run against the real serve over HTTPS with the test CA, finds it ready: exit 0")
    func endpointCheckAgainstServe() async throws {
        let fixture = try await ServeFixture(tls: true)
        try await fixture.start()
        let url = "https://127.0.0.1:\(fixture.publicPort)/apple/notifications"
        // Latency is not under test (a loaded machine can be slow to answer the probe).
        let checked = try await fixture.lifecycle([
            "endpoint", "check", url, "--ca-file", fixture.directory.file("ca.pem"), "--slow-after", "20000",
        ])
        #expect(checked.status == 0, "\(checked)")
        #expect(checked.output.contains("READY: register this URL"), "\(checked.output)")
        #expect(checked.output.contains("TLS 1.0 and 1.1 refused"), "\(checked.output)")
        #expect(!checked.output.contains("✗"), "\(checked.output)")
        // Without the test CA the same serve is not ready: its chain is not one the system trusts.
        let untrusted = try await fixture.lifecycle(["endpoint", "check", url, "--slow-after", "20000"])
        #expect(untrusted.status == 1, "\(untrusted)")
        #expect(await fixture.stop() == [0])
    }
}
