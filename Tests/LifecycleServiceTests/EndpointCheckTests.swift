import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleDevTools
import TestSupport
import Testing

@testable import LifecycleCLI

/// `lifecycle endpoint check` against real HTTPS servers on loopback, with a CA and certificates generated at
/// test time.
@Suite("lifecycle endpoint check")
struct EndpointCheckTests {
    /// A CA, a server certificate with the given flaw, and an HTTPS server that rejects unsigned bodies with 400
    /// (`/slow/…` after 1.2 s, `/boom` with 500).
    final class Endpoint: Sendable {
        let directory: TemporaryDirectory
        let caFile: String
        let server: HTTPServer
        let port: Int

        init(_ request: DevelopmentCertificates.Request = Endpoint.localhost) throws {
            directory = try TemporaryDirectory(prefix: "endpoint-check")
            let authority = try DevelopmentCertificates.authority(commonName: "Endpoint Test CA")
            let leaf = try DevelopmentCertificates.issue(request, signedBy: authority)
            caFile = directory.file("ca.pem")
            try authority.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
            try leaf.certificatePEM.write(toFile: directory.file("leaf.crt"), atomically: true, encoding: .utf8)
            try leaf.privateKeyPEM.write(toFile: directory.file("leaf.key"), atomically: true, encoding: .utf8)
            // Validation off: the flawed certificates under test must be served, not refused at load.
            let context = try TLSServerContext(
                certificateChainFile: directory.file("leaf.crt"), privateKeyFile: directory.file("leaf.key"),
                validation: .disabledForTesting)
            var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
            configuration.transport = .tls(context)
            configuration.lingerTimeout = .milliseconds(200)
            configuration.shutdownGracePeriod = .seconds(3)
            server = HTTPServer(configuration: configuration) { request in
                if request.path.hasPrefix("/slow") { try? await Task.sleep(for: .milliseconds(1200)) }
                if request.path == "/boom" { return .text("internal error\n", status: .internalServerError) }
                return .text("invalid notification\n", status: .badRequest)
            }
            try server.start()
            port = server.boundPort!
        }

        static let localhost = DevelopmentCertificates.Request(
            commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])

        func url(_ path: String = "/apple/notifications") -> String { "https://localhost:\(port)\(path)" }

        /// Runs the command and shuts the server down.
        func check(_ extra: [String] = [], path: String = "/apple/notifications") async throws -> (Int32, String) {
            let result = try await runCheck(["check", url(path), "--ca-file", caFile, "--timeout", "60"] + extra)
            await server.shutdown()
            return result
        }
    }

    static func runCheck(_ tokens: [String]) async throws -> (Int32, String) {
        var arguments = CommandArguments(command: "endpoint", tokens: tokens)
        try arguments.parse(EndpointCommand.syntax)
        let (io, output, _) = CommandIO.capturing()
        let status = try await EndpointCommand.run(&arguments, io: io)
        return (status, output())
    }

    @Test("a correct HTTPS endpoint passes every check with --ca-file and exits 0")
    func readyEndpoint() async throws {
        // Latency is not under test here (a loaded CI machine can be slow); the slow-endpoint test covers it.
        let (status, output) = try await Endpoint().check(["--slow-after", "20000"])
        #expect(status == ExitStatus.success, "\(output)")
        for id in EndpointChecker.checkOrder {
            #expect(output.contains("✓ \(id):"), "\(id) did not pass:\n\(output)")
        }
        #expect(output.contains("TLS 1.0 and 1.1 refused"))
        #expect(output.contains("→ 400"))
        #expect(output.contains("Korea registration readiness"))
        #expect(output.contains("READY: register this URL"))
    }

    @Test("--json reports each check's status and the Korea verdict")
    func jsonReport() async throws {
        // Latency is not under test here either: a probe answered after 1 s on a loaded machine is a warning.
        let (status, output) = try await Endpoint().check(["--json", "--slow-after", "20000"])
        #expect(status == ExitStatus.success, "a check failed:\n\(output)")
        let json = try JSONValue.parse(Array(output.utf8))
        guard case .object(let report) = json, case .array(let checks)? = report["checks"] else {
            Issue.record("not a report: \(output)")
            return
        }
        #expect(report["ready"] == .bool(true))
        #expect(checks.count == EndpointChecker.checkOrder.count)
        guard case .object(let korea)? = report["korea"] else {
            Issue.record("no korea section")
            return
        }
        #expect(korea["ready"] == .bool(true))
    }

    enum Flaw: String, CaseIterable, Sendable {
        case expired, wrongHostName, rsa1024, sha1Signature
    }

    @Test("a flawed certificate gives its ✗ line with a fix and exit 1", arguments: Flaw.allCases)
    func flawedCertificate(flaw: Flaw) async throws {
        var request = Endpoint.localhost
        let failing: [String]
        switch flaw {
        case .expired:
            (request.validFrom, request.validUntil) = (-30 * 86_400, -86_400)
            failing = ["expiry", "chain"]
        case .wrongHostName:
            request = DevelopmentCertificates.Request(commonName: "other.example", dnsNames: ["other.example"])
            failing = ["host-name"]
        case .rsa1024:
            request.key = .rsa(bits: 1024)
            failing = ["key", "ats"]
        case .sha1Signature:
            request.digest = .sha1
            failing = ["signature", "ats"]
        }
        let (status, output) = try await Endpoint(request).check()
        #expect(status == ExitStatus.negative, "\(output)")
        for id in failing {
            #expect(output.contains("✗ \(id):"), "no ✗ \(id) line:\n\(output)")
        }
        #expect(output.contains("    fix: "))
        #expect(output.contains("NOT READY"))
    }

    @Test(
        "a plain-http URL fails the URL rule and contacts nothing",
        arguments: [
            "http://localhost:9/apple/notifications", "https://localhost:9", "/apple/notifications",
        ])
    func badURL(url: String) async throws {
        let (status, output) = try await Self.runCheck(["check", url])
        #expect(status == ExitStatus.negative)
        #expect(output.contains("✗ url:"), "\(output)")
        #expect(output.contains("- tcp: not checked"))
    }

    @Test("an endpoint that takes 1.2 s to answer gets the latency warning but is still ready")
    func slowEndpoint() async throws {
        let (status, output) = try await Endpoint().check(path: "/slow/notifications")
        #expect(status == ExitStatus.success, "\(output)")
        #expect(output.contains("! probe:"), "\(output)")
        #expect(output.contains("(slow)"))
    }

    @Test("an endpoint that answers the probe with 5xx is not ready")
    func serverError() async throws {
        let (status, output) = try await Endpoint().check(path: "/boom")
        #expect(status == ExitStatus.negative)
        #expect(output.contains("✗ probe:"), "\(output)")
    }

    @Test("without the test CA the private chain is reported untrusted")
    func untrustedChain() async throws {
        let endpoint = try Endpoint()
        let result = try await Self.runCheck(["check", endpoint.url(), "--timeout", "60"])
        await endpoint.server.shutdown()
        #expect(result.0 == ExitStatus.negative)
        #expect(result.1.contains("✗ chain:"), "\(result.1)")
    }

    @Test(
        "bad usage is a usage error (exit 2 from the dispatcher)",
        arguments: [
            [String](), ["check"], ["verify", "https://localhost/x"],
            ["check", "https://localhost/x", "--timeout", "0"],
            ["check", "https://localhost/x", "--ca-file", "/nonexistent/ca.pem"],
        ])
    func usage(tokens: [String]) async throws {
        await #expect(throws: UsageError.self) { _ = try await Self.runCheck(tokens) }
    }
}
