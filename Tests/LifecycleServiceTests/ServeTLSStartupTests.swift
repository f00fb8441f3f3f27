import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleDevTools
import TestSupport
import Testing

@testable import LifecycleCLI

@Suite("serve refuses certificates that would lose notifications")
struct ServeTLSStartupTests {
    func configuration(with leaf: DevelopmentCertificates.Issued, key: String? = nil) throws -> ServiceHarness {
        let harness = try ServiceHarness()
        try leaf.certificatePEM.write(toFile: harness.directory.file("server.crt"), atomically: true, encoding: .utf8)
        try (key ?? leaf.privateKeyPEM).write(
            toFile: harness.directory.file("server.key"), atomically: true, encoding: .utf8)
        var config = try #require(
            JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: harness.configurationFile)))?.objectValue)
        config["public"] = [
            "host": "127.0.0.1", "port": 0,
            "tls": ["certificateFile": "server.crt", "privateKeyFile": "server.key"],
        ]
        try Data(JSONValue.object(config).serialized().utf8).write(to: URL(fileURLWithPath: harness.configurationFile))
        return harness
    }

    func serve(_ harness: ServiceHarness) async -> (status: Int32, errors: String) {
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: ["serve", "--config", harness.configurationFile], io: captured.io)
        return (status, captured.errors())
    }

    @Test("an expired certificate stops start-up with one line naming the file")
    func expired() async throws {
        let authority = try DevelopmentCertificates.authority()
        let leaf = try DevelopmentCertificates.issue(
            DevelopmentCertificates.Request(commonName: "localhost", validFrom: -90 * 86_400, validUntil: -86_400),
            signedBy: authority)
        let result = await serve(try configuration(with: leaf))
        #expect(result.status == 2)
        #expect(result.errors.contains("server.crt"))
        #expect(result.errors.lowercased().contains("expired"))
        #expect(result.errors.split(separator: "\n").count == 1)
    }

    @Test("a certificate that does not match its key stops start-up")
    func mismatchedKey() async throws {
        let authority = try DevelopmentCertificates.authority()
        let leaf = try DevelopmentCertificates.issue(
            DevelopmentCertificates.Request(commonName: "localhost"), signedBy: authority)
        let other = try DevelopmentCertificates.issue(
            DevelopmentCertificates.Request(commonName: "localhost"), signedBy: authority)
        let result = await serve(try configuration(with: leaf, key: other.privateKeyPEM))
        #expect(result.status == 2)
        #expect(result.errors.contains("does not match"))
    }
}
