import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import Synchronization
import TestSupport
import Testing

/// Tools nobody here wrote, against the real `lifecycle serve` process: schemathesis drives the admin API
/// from its own `/openapi.json`, and the reference `standardwebhooks` package verifies the outbox's
/// deliveries as an app backend would.
@Suite(
    "Outside clients against a real serve process",
    .enabled(
        if: OutsideTools.has("python"),
        "the test venv is missing: run scripts/test-venv.sh (make test does) to install Tests/OutsideClients/requirements.txt"
    ))
struct OutsideClientTests {
    static let token = "outside-client-admin-token-0123456789"

    /// Examples per operation and phase, and the seed: fixed, so a run repeats exactly (~10 s here).
    static let maxExamples = 40
    static let seed = 20_261_201

    @Test(
        "schemathesis, every check: no 5xx, no schema violation, no documented-but-refused or accepted-but-undocumented case, /healthz alive after"
    )
    func schemathesisFindsNothing() async throws {
        try #require(OutsideTools.has("schemathesis"), "\(OutsideTools.missingReason)")
        let harness = try ServiceHarness(adminToken: Self.token)
        let publicPort = try await WebhookReceiver.unusedPort()
        let adminPort = try await WebhookReceiver.unusedPort()
        try harness.setPublicPort(publicPort)
        try harness.setAdminPort(adminPort)
        let service = try LifecycleProcess.serve(configurationFile: harness.configurationFile)
        defer { service.kill(signal: SIGKILL) }
        try await LifecycleProcess.waitUntilReady(port: publicPort)

        let admin = "http://127.0.0.1:\(adminPort)"
        let run = try await OutsideTools.run(
            "schemathesis",
            [
                "run", "\(admin)/openapi.json", "--url", admin, "-H", "Authorization: Bearer \(Self.token)",
                "--checks", "all", "--seed", String(Self.seed), "--max-examples", String(Self.maxExamples),
                "--no-color",
            ],
            environment: [
                "SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": OutsideTools.scripts.path,
                "LIFECYCLE_TEST_APP": ServiceHarness.appID,
            ], in: harness.directory.path)
        #expect(run.status == 0, "schemathesis:\n\(run.output.suffix(6000))")
        #expect(run.output.contains("Test cases:"), "schemathesis ran no test:\n\(run.output.suffix(2000))")

        let health = try await HTTPClient(host: "127.0.0.1", port: publicPort).get("/healthz")
        #expect(health.status == 200)
        service.kill(signal: SIGTERM)
        #expect(await service.waitForExit() == 0)
    }

    @Test("standardwebhooks verifies every outbox delivery, first attempts and retries, and refuses tampered ones")
    func standardWebhooksVerifiesDeliveries() async throws {
        let receiver = try FlakyReceiver()
        let harness = try ServiceHarness(
            extraConfiguration: OutboxDeliveryTests.fastOutbox, webhookURL: receiver.url)
        let publicPort = try await WebhookReceiver.unusedPort()
        try harness.setPublicPort(publicPort)
        let service = try LifecycleProcess.serve(configurationFile: harness.configurationFile)
        defer { service.kill(signal: SIGKILL) }
        try await LifecycleProcess.waitUntilReady(port: publicPort)

        let types = ["consent-revoked", "email-disabled", "email-enabled", "account-delete"]
        for (index, type) in types.enumerated() {
            let subject = "001234.outside\(index)"
            #expect(try await harness.post(harness.body(type: type, subject: subject), port: publicPort).status == 200)
        }
        // Each message is refused once (503) and accepted on its retry (204).
        // consent-revoked, email-disabled and account-delete each send at least one message.
        let deliveries = await receiver.waitForRetries(atLeast: 3, timeout: .seconds(20))
        let ids = Set(deliveries.map(\.id))
        #expect(ids.count >= 3)
        for id in ids { #expect(deliveries.filter { $0.id == id }.count >= 2, "message \(id) was not retried") }
        service.kill(signal: SIGTERM)
        #expect(await service.waitForExit() == 0)
        await receiver.stop()

        let file = harness.directory.file("deliveries.json")
        let records: [JSONValue] = deliveries.map { delivery in
            [
                "headers": [
                    "webhook-id": .string(delivery.id), "webhook-timestamp": .string(delivery.timestamp),
                    "webhook-signature": .string(delivery.signature),
                ],
                "body": .string(Data(delivery.body).base64EncodedString()),
            ]
        }
        try Data(JSONValue.array(records).serialized().utf8).write(to: URL(fileURLWithPath: file))
        let verify = try await OutsideTools.run(
            "python", [OutsideTools.scripts.appendingPathComponent("verify_webhooks.py").path, file],
            environment: ["LIFECYCLE_WEBHOOK_SECRET": ServiceHarness.webhookSecret], in: harness.directory.path)
        #expect(verify.status == 0, "\(verify.output)")
        let summary = JSONValue.parseIfValid(Array(verify.output.utf8))
        #expect(summary?["verified"] == .integer(Int64(deliveries.count)), "\(verify.output)")
        #expect((summary?["refusedTampered"]?.integerValue ?? 0) >= Int64(deliveries.count), "\(verify.output)")
    }
}

/// A webhook endpoint that answers 503 to the first attempt of each message and 204 to later ones, and
/// records every attempt as received.
final class FlakyReceiver: Sendable {
    let server: HTTPServer
    let log = WebhookReceiver.DeliveryLog()

    init() throws {
        let log = self.log
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { request in
            let delivery = WebhookReceiver.Delivery(
                id: request.headers["webhook-id"] ?? "", timestamp: request.headers["webhook-timestamp"] ?? "",
                signature: request.headers["webhook-signature"] ?? "", body: request.body)
            let first = log.items.withLock { items in
                defer { items.append(delivery) }
                return !items.contains { $0.id == delivery.id }
            }
            return .empty(first ? .serviceUnavailable : .noContent)
        }
        try server.start()
    }

    var url: String { "http://127.0.0.1:\(server.boundPort ?? 0)/hooks/lifecycle" }

    func stop() async { await server.shutdown() }

    /// Waits until at least `count` distinct messages arrived and every one was attempted at least twice.
    func waitForRetries(atLeast count: Int, timeout: Duration) async -> [WebhookReceiver.Delivery] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            let items = log.items.withLock { $0 }
            let retried = Set(items.map(\.id)).filter { id in items.filter { $0.id == id }.count >= 2 }
            if retried.count >= count, retried.count == Set(items.map(\.id)).count { return items }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return log.items.withLock { $0 }
    }
}
