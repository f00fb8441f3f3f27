import Foundation
import HTTP1
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleEngine

/// Effects leave through the transactional outbox as signed webhooks: at least once, in order per account,
/// retried with backoff, dead after the limit, retryable by hand, and never lost to a crash.
@Suite("Outbox delivery end to end")
struct OutboxDeliveryTests {
    /// Short delays so retries happen within the test's time. The lease and the request timeout are long enough
    /// that a delivery slowed by a busy machine (the suite runs in parallel) is neither timed out nor re-claimed:
    /// "exactly once" below is then the dispatcher's doing, not the scheduler's.
    static let fastOutbox: JSONObject = [
        "outbox": [
            "maxAttempts": 4, "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 200, "pollMilliseconds": 100,
            "timeoutMilliseconds": 5000, "leaseSeconds": 10,
        ]
    ]

    /// `fastOutbox` with a 1 s lease, for the test whose point is that an expired lease hands a message on.
    static let shortLeaseOutbox: JSONObject = [
        "outbox": [
            "maxAttempts": 4, "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 200, "pollMilliseconds": 100,
            "timeoutMilliseconds": 1000, "leaseSeconds": 1,
        ]
    ]

    @Test(
        "consent-revoked produces exactly one signed account.sessions.terminate delivery",
        arguments: HarnessStore.available)
    func sessionTermination(store: HarnessStore) async throws {
        let receiver = try WebhookReceiver()
        let harness = try ServiceHarness(extraConfiguration: Self.fastOutbox, webhookURL: receiver.url, store: store)
        try await harness.start()
        #expect(try await harness.post(harness.body(type: "consent-revoked")).status == 200)

        let deliveries = await receiver.waitFor(1)
        try await Task.sleep(for: .milliseconds(300))  // a second delivery would show up here
        #expect(receiver.received.count == 1)
        let delivery = try #require(deliveries.first)
        #expect(delivery.json?["type"] == "account.sessions.terminate")
        #expect(delivery.json?["data"]?["sub"] == .string(TestFixtures.subject))
        #expect(delivery.json?["data"]?["reason"] == "consent-revoked")
        let signer = WebhookSigner(secret: Array(ServiceHarness.webhookSecret.utf8))
        #expect(
            signer.verify(
                id: delivery.id, timestamp: Int64(delivery.timestamp) ?? 0, body: delivery.body,
                signatureHeader: delivery.signature))
        #expect(!signer.verify(id: delivery.id, timestamp: 1, body: delivery.body, signatureHeader: delivery.signature))
        await harness.stop()
        await receiver.stop()
    }

    @Test("e-mail events tell the app whether forwarding is on, in the order they happened")
    func emailForwardingInOrder() async throws {
        let receiver = try WebhookReceiver()
        let harness = try ServiceHarness(extraConfiguration: Self.fastOutbox, webhookURL: receiver.url)
        try await harness.start()
        let base = SystemClock().now()
        _ = try await harness.post(harness.body(type: "email-disabled", eventTime: base))
        _ = try await harness.post(harness.body(type: "email-enabled", eventTime: base.adding(seconds: 1)))
        let deliveries = await receiver.waitFor(2)
        #expect(deliveries.map { $0.json?["data"]?["enabled"] } == [false, true])
        #expect(deliveries.allSatisfy { $0.json?["type"] == "account.email_forwarding.changed" })
        await harness.stop()
        await receiver.stop()
    }

    @Test("with the receiver down, delivery is retried with backoff and arrives once it is up")
    func retriesUntilReceiverIsUp() async throws {
        let port = try await WebhookReceiver.unusedPort()
        var configuration = Self.fastOutbox
        configuration["outbox"] = [
            "maxAttempts": 50, "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 200, "pollMilliseconds": 100,
        ]
        let harness = try ServiceHarness(
            extraConfiguration: configuration, webhookURL: "http://127.0.0.1:\(port)/hooks/lifecycle")
        let service = try await harness.start()
        _ = try await harness.post(harness.body(type: "consent-revoked"))
        // Retried with backoff: wait for the second failed attempt rather than for a fixed time.
        let store = service.context.store
        let retried = await eventually(timeout: .seconds(10)) {
            let pending = try? await store.read { try $0.outbox(status: .pending, limit: 10) }
            return (pending?.first?.attempts ?? 0) >= 2
        }
        #expect(retried)
        let pending = try await service.context.store.read { try $0.outbox(status: .pending, limit: 10) }
        #expect(pending.count == 1)
        #expect((pending.first?.attempts ?? 0) >= 2)
        #expect(pending.first?.lastError == "connect_failed")

        let receiver = try WebhookReceiver(port: port)
        let deliveries = await receiver.waitFor(1)
        #expect(deliveries.count == 1)
        try await Task.sleep(for: .milliseconds(200))
        let delivered = try await service.context.store.read { try $0.outbox(status: .delivered, limit: 10) }
        #expect(delivered.count == 1)
        await harness.stop()
        await receiver.stop()
    }

    @Test("after the attempt limit a message is dead, visible in metrics, and a retry delivers it")
    func deadThenRetried() async throws {
        // One receiver throughout (a freed port may be taken by a parallel test before it is bound again): it
        // answers the first four attempts 503, then accepts.
        let unavailable = Array(repeating: HTTPStatus.serviceUnavailable, count: 4)
        let failing = try WebhookReceiver(status: .noContent, first: unavailable)
        let harness = try ServiceHarness(
            extraConfiguration: Self.fastOutbox, webhookURL: failing.url, adminToken: "outbox-metrics-token-0123456789")
        let service = try await harness.start()
        _ = try await harness.post(harness.body(type: "account-delete"))
        _ = await failing.waitFor(4)
        // The fourth failure makes it dead; wait for that, then for a fifth attempt that must not come.
        let store = service.context.store
        let isDead = await eventually(timeout: .seconds(10)) {
            let dead = try? await store.read { try $0.outbox(status: .dead, limit: 10) }
            return dead?.count == 1
        }
        #expect(isDead)
        try await Task.sleep(for: .milliseconds(300))
        #expect(failing.received.count == 4)
        let dead = try await service.context.store.read { try $0.outbox(status: .dead, limit: 10) }
        #expect(dead.count == 1)
        #expect(dead.first?.lastError == "http_503")
        let metrics = try await harness.metrics()
        #expect(metrics.contains("lifecycle_outbox_messages{status=\"dead\"} 1"))
        #expect(
            metrics.contains("lifecycle_outbox_deliveries_total{kind=\"account.sessions.terminate\",result=\"dead\"} 1")
        )

        // The receiver now accepts: a manual retry delivers.
        let id = try #require(dead.first?.id)
        let now = SystemClock().now()
        #expect(try await service.context.store.write { try $0.retryOutbox(id: id, now: now) })
        service.context.outboxSignal.notify()
        #expect(await failing.waitFor(5).count == 5)
        await harness.stop()
        await failing.stop()
    }

    /// A message claimed by the killed process is taken over once its lease (1 s here) runs out.
    @Test("a crash between commit and delivery loses no effect: after restart the message is delivered")
    func crashBeforeDelivery() async throws {
        let port = try await WebhookReceiver.unusedPort()
        let harness = try ServiceHarness(
            extraConfiguration: Self.shortLeaseOutbox, webhookURL: "http://127.0.0.1:\(port)/hooks/lifecycle")
        let publicPort = try await WebhookReceiver.unusedPort()
        try harness.setPublicPort(publicPort)

        let first = try LifecycleProcess.serve(configurationFile: harness.configurationFile)
        try await LifecycleProcess.waitUntilReady(port: publicPort)
        #expect(try await harness.post(harness.body(type: "consent-revoked"), port: publicPort).status == 200)
        first.kill(signal: SIGKILL)
        _ = await first.waitForExit()

        let receiver = try WebhookReceiver(port: port)
        let second = try LifecycleProcess.serve(configurationFile: harness.configurationFile)
        let deliveries = await receiver.waitFor(1, timeout: .seconds(15))
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.json?["type"] == "account.sessions.terminate")
        second.kill(signal: SIGTERM)
        #expect(await second.waitForExit() == 0)
        await receiver.stop()
    }
}
