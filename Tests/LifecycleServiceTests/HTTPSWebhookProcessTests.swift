import Foundation
import LifecycleCore
import TestSupport
import Testing

/// README, "Webhooks to the app backend": `https://` receivers are verified against the system trust store.
/// The real `serve` delivers to an HTTPS receiver whose certificate comes from a CA made for the test: unknown
/// to the system store, every attempt fails before a byte of the webhook is sent; trusted the way an operator
/// trusts a private CA (`SSL_CERT_FILE`, which OpenSSL reads for the system store), it is delivered.
@Suite("HTTPS webhook receivers and the system trust store")
struct HTTPSWebhookProcessTests {
    static let outbox: JSONObject = [
        "outbox": [
            "maxAttempts": 2, "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 100, "pollMilliseconds": 100,
            "leaseSeconds": 5,
        ]
    ]

    @Test("a receiver whose CA the system store does not hold gets nothing; the message ends dead with the TLS error")
    func untrustedReceiverRefused() async throws {
        let directory = try TemporaryDirectory(prefix: "https-webhook")
        let receiver = try WebhookReceiver(tlsDirectory: directory.path)
        #expect(receiver.url.hasPrefix("https://"))
        let fixture = try await ServeFixture(apps: [ServeFixture.app(webhook: receiver.url)], extra: Self.outbox)
        try fixture.writeSecret(ServeProcessTests.webhookSecret, to: "secrets/shop-webhook")
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: "000999.tls.0001")).status
                == 200)
        let died = await eventually(timeout: .seconds(20)) {
            (try? await fixture.metric("lifecycle_outbox_messages", ["status": "dead"])) == 1
        }
        #expect(died, "\(fixture.log.suffix(2000))")
        #expect(receiver.received.isEmpty, "no webhook crossed an unverified connection")
        let listed = try await fixture.lifecycle(
            ["outbox", "list", "--status", "dead", "--json", "--config", fixture.configurationFile])
        let message = try #require(
            JSONValue.parseIfValid(Array(listed.output.utf8))?["messages"]?.arrayValue?.first, "\(listed)")
        let error = message["lastError"]?.stringValue ?? ""
        #expect(error.lowercased().contains("tls") || error.lowercased().contains("certificate"), "\(message)")
        #expect(await fixture.stop() == [0])
        await receiver.stop()
        withExtendedLifetime(directory) {}
    }

    @Test("the same receiver, its CA trusted through SSL_CERT_FILE, gets the signed webhook")
    func trustedReceiverDelivered() async throws {
        let directory = try TemporaryDirectory(prefix: "https-webhook")
        let receiver = try WebhookReceiver(tlsDirectory: directory.path)
        let caFile = try #require(receiver.caFile)
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(webhook: receiver.url)], extra: Self.outbox,
            environment: ["SSL_CERT_FILE": caFile])
        try fixture.writeSecret(ServeProcessTests.webhookSecret, to: "secrets/shop-webhook")
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: "000999.tls.0002")).status
                == 200)
        let delivered = await receiver.waitFor(1, timeout: .seconds(20))
        #expect(delivered.count == 1, "\(fixture.log.suffix(2000))")
        #expect(delivered.first.map { WebhookReceiver.isSigned($0, secret: ServeProcessTests.webhookSecret) } == true)
        #expect(delivered.first?.json?["type"] == "account.sessions.terminate")
        // README, "Metrics": the delivery's time, by kind.
        let timed = await eventually(timeout: .seconds(10)) {
            (try? await fixture.metric(
                "lifecycle_outbox_delivery_duration_seconds_count", ["kind": "account.sessions.terminate"])) ?? 0 >= 1
        }
        #expect(timed, "lifecycle_outbox_delivery_duration_seconds{kind}")
        #expect(await fixture.stop() == [0])
        await receiver.stop()
        withExtendedLifetime(directory) {}
    }
}
