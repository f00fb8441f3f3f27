import Foundation
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// Two `lifecycle serve` instances on one PostgreSQL store, one poll stream: one instance polls while the
/// other stands by, and the standby takes over when the poller is killed (README, "Poll delivery").
@Suite(
    "Shared Signals poll delivery with two instances", .serialized,
    .enabled(if: HarnessStore.postgresServer != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)"))
struct SecurityEventPollStandbyTests {
    typealias Poll = SecurityEventPollTests

    @Test("one instance polls, the other stands by; after a kill -9 of the poller the standby polls and stores")
    func standbyTakesOver() async throws {
        let server = try #require(HarnessStore.postgresServer)
        let database = try await PostgresTestDatabase.create(serverURL: server)
        let fake = try FakeTransmitter()
        do {
            try await run(fake, database)
        } catch {
            await fake.stop()
            await database.drop()
            throw error
        }
        await fake.stop()
        await database.drop()
    }

    private func run(_ fake: FakeTransmitter, _ database: PostgresTestDatabase) async throws {
        let (fixture, first) = try await Poll.serve(fake, storage: ["url": .string(database.url)])
        // The second instance: the same configuration and secrets, its own listeners.
        let ports = [try await WebhookReceiver.unusedPort(), try await WebhookReceiver.unusedPort()]
        var configuration = try #require(
            JSONValue.parseIfValid(Array(try Data(contentsOf: URL(fileURLWithPath: fixture.configurationFile))))?
                .objectValue)
        configuration["public"] = ["host": "127.0.0.1", "port": .integer(Int64(ports[0]))]
        configuration["admin"] = [
            "host": "127.0.0.1", "port": .integer(Int64(ports[1])), "tokenFile": "secrets/admin-token",
        ]
        let secondFile = fixture.directory.file("lifecycle-2.json")
        try Data(JSONValue.object(configuration).encoded()).write(to: URL(fileURLWithPath: secondFile))
        let secondLog = fixture.directory.file("serve-2.log")
        let second = try LifecycleProcess.start(
            ["serve", "--config", secondFile], environment: ["SSL_CERT_FILE": fake.caFile], standardError: secondLog)
        defer { second.kill(signal: SIGKILL) }
        try await LifecycleProcess.waitUntilReady(port: ports[0])
        let secondLogText: @Sendable () -> String = {
            (try? String(contentsOfFile: secondLog, encoding: .utf8)) ?? ""
        }

        Poll.enqueue(fake, Poll.risc + "account-disabled", sub: "user-before")
        let stored = await eventually(timeout: .seconds(20)) {
            (try? await Poll.account(fixture, Poll.key(fake, "user-before")).json?["state"]) == "consent-revoked"
        }
        #expect(stored, "the polling instance stored the SET")
        #expect(
            await eventually(timeout: .seconds(10)) { secondLogText().contains("\"signal.poll_standby\"") },
            "the second instance stands by: \(secondLogText())")
        let secondPolls = try await Self.metric(
            port: ports[1], "lifecycle_signal_polls_total", ["app": "shop", "provider": "idp", "result": "ok"])
        #expect((secondPolls ?? 0) == 0, "the standby does not poll while the first instance does")
        #expect(
            (try await fixture.metric(
                "lifecycle_signal_polls_total", ["app": "shop", "provider": "idp", "result": "ok"]) ?? 0) > 0)

        first.kill(signal: SIGKILL)
        _ = await first.waitForExit()
        Poll.enqueue(fake, Poll.risc + "account-disabled", sub: "user-after")
        let encoded = Poll.key(fake, "user-after").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let taken = await eventually(timeout: .seconds(30)) {
            let answer = try? await ServeFixture.admin(port: ports[1], "GET", "/v1/apps/shop/accounts/\(encoded)")
            return answer?.json?["state"] == "consent-revoked"
        }
        #expect(taken, "the standby took over and stored the next SET: \(secondLogText())")
        #expect(secondLogText().contains("\"signal.poll_leading\""))
        second.kill(signal: SIGTERM)
        #expect(await second.waitForExit() == 0)
    }

    static func metric(port: Int, _ name: String, _ labels: [String: String]) async throws -> Double? {
        PrometheusText.value(in: try await ServeFixture.metrics(port: port), name: name, labels: labels)
    }
}
