import Foundation
import HTTPServer
import LifecycleCore
import Testing

/// A webhook that keeps failing ends `dead` in the real `serve` (README, "Webhooks to the app backend"), and a
/// separate `lifecycle outbox retry ID` process, working on the store, sends it round again: `serve` sees the
/// change at its next poll, with no signal between the two processes. Observed from outside: the receiver,
/// `/metrics` and the command's output and exit status.
@Suite("Dead webhooks across processes")
struct OutboxDeadLetterProcessTests {
    @Test(
        "after outbox.maxAttempts failures a message is dead (metric, outbox list); outbox retry from another process gets it delivered"
    )
    func deadThenRetriedFromTheCommandLine() async throws {
        // Two failures, then the receiver answers 204.
        let receiver = try WebhookReceiver(first: [.internalServerError, .serviceUnavailable])
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(webhook: receiver.url)],
            extra: [
                "outbox": [
                    "maxAttempts": 2, "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 100,
                    "pollMilliseconds": 1000, "leaseSeconds": 5,
                ]
            ])
        try fixture.writeSecret(ServeProcessTests.webhookSecret, to: "secrets/shop-webhook")
        try await fixture.start()
        let notification = fixture.notification(type: "consent-revoked", subject: ServeProcessTests.subject)
        #expect(try await fixture.post(notification).status == 200)

        let died = await eventually(timeout: .seconds(20)) {
            (try? await fixture.metric("lifecycle_outbox_messages", ["status": "dead"])) == 1
        }
        #expect(died, "dead after two failed attempts: \(receiver.received.count) received")
        #expect(receiver.received.count == 2)
        // Listed through the running serve's admin API (README: outbox … with --url), retried on the store.
        let listed = try await fixture.lifecycle(
            ["outbox", "list", "--status", "dead", "--json"] + fixture.throughAdminAPI)
        #expect(listed.status == 0, "\(listed)")
        let message = try #require(
            JSONValue.parseIfValid(Array(listed.output.utf8))?["messages"]?.arrayValue?.first, "\(listed)")
        let id = try #require(message["id"]?.integerValue)
        #expect(message["attempts"]?.integerValue == 2)
        #expect(message["lastStatusCode"]?.integerValue == 503)

        let retried = try await fixture.lifecycle([
            "outbox", "retry", String(id), "--config", fixture.configurationFile,
        ])
        #expect(retried.status == 0, "\(retried)")
        let delivered = await receiver.waitFor(3, timeout: .seconds(15))
        #expect(delivered.count == 3, "delivered once more after the retry")
        #expect(delivered.last.map { WebhookReceiver.isSigned($0, secret: ServeProcessTests.webhookSecret) } == true)
        #expect(delivered.last?.id == delivered.first?.id, "the retry keeps the message's webhook-id")
        let settled = await eventually(timeout: .seconds(10)) {
            let dead = try? await fixture.metric("lifecycle_outbox_messages", ["status": "dead"])
            let delivered = try? await fixture.metric("lifecycle_outbox_messages", ["status": "delivered"])
            return dead == 0 && delivered == 1
        }
        #expect(settled, "the gauge follows the retried message to delivered")
        let again = try await fixture.lifecycle(["outbox", "retry", String(id)] + fixture.throughAdminAPI)
        #expect(again.status == 1, "a delivered message is not dead: \(again)")
        #expect(await fixture.stop() == [0])
        await receiver.stop()
    }
}
