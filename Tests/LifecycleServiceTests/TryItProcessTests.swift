import Foundation
import Glibc
import HTTP1
import HTTPServer
import TestSupport
import Testing

/// README, "Try it in two shells", as a newcomer runs it: `dev-setup` (what `make run` calls), `serve` on the
/// config it wrote, `simulate` found through `LIFECYCLE_CONFIG`, the metrics behind the admin token. Each step
/// is the real `lifecycle` executable; what is checked is what the README shows.
@Suite("README's first run: dev-setup, serve, simulate")
struct TryItProcessTests {
    @Test(
        "dev-setup writes a config serve runs on; simulate through LIFECYCLE_CONFIG prints the answer and exits 0; the admin token reads the metrics; an unreachable --url exits 2"
    )
    func twoShells() async throws {
        let directory = try TemporaryDirectory(prefix: "lifecycle-try-it")
        let port = try TestPorts.unused(consecutive: 2)
        let setup = try await LifecycleProcess.run(
            ["dev-setup", "--directory", "dev", "--port", String(port)], directory: directory.path)
        #expect(setup.status == 0, "\(setup)")
        let config = directory.file("dev/lifecycle.json")
        let log = directory.file("serve.log")
        let serve = try LifecycleProcess.start(["serve", "--config", config], standardError: log)
        defer { serve.kill(signal: SIGKILL) }
        do {
            try await LifecycleProcess.waitUntilReady(port: port)
        } catch {
            Issue.record("serve did not become ready: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            throw error
        }

        let environment = ["LIFECYCLE_CONFIG": config]
        let first = try await LifecycleProcess.run(
            ["simulate", "--type", "consent-revoked", "--sub", "001234.example.0001"], environment: environment,
            directory: directory.path)
        #expect(first.status == 0, "\(first)")
        #expect(
            first.output
                == "200 {\"status\":\"accepted\",\"id\":1,\"disposition\":\"applied\",\"state\":\"consent-revoked\"}\n",
            "\(first)")
        let older = try await LifecycleProcess.run(
            [
                "simulate", "--type", "consent-revoked", "--sub", "001234.example.0001", "--event-time",
                "2026-01-01T00:00:00Z",
            ], environment: environment, directory: directory.path)
        #expect(older.status == 0, "\(older)")
        // Stored, and applied to nothing: the account already holds a newer event.
        #expect(
            older.output
                == "200 {\"status\":\"accepted\",\"id\":2,\"disposition\":\"stale\",\"state\":\"consent-revoked\"}\n",
            "\(older)")

        let token = try String(contentsOfFile: directory.file("dev/secrets/admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let metrics = try await HTTPClient(host: "127.0.0.1", port: port + 1, timeout: .seconds(10)).send(
            HTTPClientRequest(
                method: "GET", target: "/metrics", headers: ["Authorization": "Bearer \(token)"], body: []))
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(
            text.contains("lifecycle_notifications_total{type=\"consent-revoked\",outcome=\"accepted\"} 2"),
            "\(text.split(separator: "\n").filter { $0.contains("lifecycle_notifications_total") })")

        // Nothing listens there: "could not send" is exit 2, not an answer.
        let refusing = try RefusingPort()
        let unreachable = try await LifecycleProcess.run(
            [
                "simulate", "--type", "email-disabled", "--sub", "001234.example.0001", "--url",
                "http://127.0.0.1:\(refusing.port)/apple/notifications",
            ], environment: environment, directory: directory.path)
        #expect(unreachable.status == 2, "\(unreachable)")
        #expect(unreachable.errorLines.count == 1, "one line: \(unreachable)")

        #expect(await serve.terminate().status == 0)
    }
}
