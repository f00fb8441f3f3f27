import AppleNotifications
import Foundation
import HTTP1
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

/// The live endpoint over a real socket and a real SQLite file: what Apple's retries and an operator rely on.
/// Every test runs twice: over plain HTTP and over HTTPS served by the service itself; the storage tests also
/// on PostgreSQL when `LIFECYCLE_TEST_POSTGRES_URL` is set.
@Suite("Notification endpoint end to end")
struct NotificationEndpointTests {
    static let adminToken = "notification-endpoint-admin-token-0123"
    @Test(
        "a signed notification is stored and answered 200 accepted; the same again is 200 duplicate, stored once",
        arguments: ServiceHarness.Transport.allCases, HarnessStore.available)
    func acceptedThenDuplicate(transport: ServiceHarness.Transport, store: HarnessStore) async throws {
        let harness = try ServiceHarness(transport: transport, store: store)
        let service = try await harness.start()
        let body = harness.body(type: "consent-revoked")

        let first = try await harness.post(body)
        #expect(first.status == 200)
        #expect(first.json?["status"] == "accepted")
        let again = try await harness.post(body)
        #expect(again.status == 200)
        #expect(again.json?["status"] == "duplicate")
        #expect(again.json?["id"] == first.json?["id"])

        let count = try await service.context.store.read { try $0.notificationCount() }
        #expect(count == 1)
        await harness.stop()
    }

    @Test(
        "the same event resent under a new jti is a duplicate of the stored event",
        arguments: ServiceHarness.Transport.allCases, HarnessStore.available)
    func semanticDuplicate(transport: ServiceHarness.Transport, store: HarnessStore) async throws {
        let harness = try ServiceHarness(transport: transport, store: store)
        let service = try await harness.start()
        let eventTime = Instant(millisecondsSinceEpoch: 1_752_572_190_719)
        let first = try await harness.post(harness.body(type: "account-delete", eventTime: eventTime))
        let resent = try await harness.post(harness.body(type: "account-deleted", eventTime: eventTime))
        #expect(first.json?["status"] == "accepted")
        #expect(resent.json?["status"] == "duplicate")
        #expect(try await service.context.store.read { try $0.notificationCount() } == 1)
        await harness.stop()
    }

    @Test(
        "a tampered notification is 400 with its reason code and leaves no event, only a rejection record",
        arguments: ServiceHarness.Transport.allCases, HarnessStore.available)
    func tamperedIsRejected(transport: ServiceHarness.Transport, store: HarnessStore) async throws {
        let harness = try ServiceHarness(transport: transport, store: store)
        let service = try await harness.start()
        var text = String(decoding: harness.body(type: "consent-revoked"), as: UTF8.self)
        // Flip one character of the signature segment.
        let index = text.index(text.endIndex, offsetBy: -4)
        text.replaceSubrange(index...index, with: text[index] == "A" ? "B" : "A")
        let answer = try await harness.post(Array(text.utf8))
        #expect(answer.status == 400)
        #expect(answer.json?["code"] == "bad_signature")
        #expect(answer.json?["err"] == "authentication_failed")
        let (events, rejections) = try await service.context.store.read {
            (try $0.notificationCount(), try $0.rejections(limit: 10))
        }
        #expect(events == 0)
        #expect(rejections.map(\.rejection.reason) == [.badSignature])
        await harness.stop()
    }

    @Test(
        "unverifiable bodies are 400 with a stable code",
        arguments: [
            ("{}", "missing_payload"), ("not json", "malformed_body"), ("{\"payload\":\"a.b\"}", "malformed_jws"),
        ])
    func unverifiable(body: String, code: String) async throws {
        let harness = try ServiceHarness(transport: .tls)
        try await harness.start()
        let answer = try await harness.post(Array(body.utf8))
        #expect(answer.status == 400)
        #expect(answer.json?["code"] == .string(code))
        await harness.stop()
    }

    @Test("a token for an audience no app lists is 400 invalid_audience", arguments: ServiceHarness.Transport.allCases)
    func wrongAudience(transport: ServiceHarness.Transport) async throws {
        let harness = try ServiceHarness(transport: transport)
        try await harness.start()
        let answer = try await harness.post(harness.body(type: "consent-revoked", audience: "com.other.app"))
        #expect(answer.status == 400)
        #expect(answer.json?["code"] == "invalid_audience")
        await harness.stop()
    }

    @Test(
        "an unknown event type is stored and answered 200 ignored, never dropped",
        arguments: ServiceHarness.Transport.allCases)
    func unknownType(transport: ServiceHarness.Transport) async throws {
        let harness = try ServiceHarness(adminToken: Self.adminToken, transport: transport)
        let service = try await harness.start()
        let answer = try await harness.post(harness.body(type: "account-suspended"))
        #expect(answer.status == 200)
        #expect(answer.json?["status"] == "ignored")
        #expect(try await service.context.store.read { try $0.notificationCount() } == 1)
        let text = try await harness.metrics()
        #expect(text.contains("lifecycle_notifications_total{type=\"unknown\",outcome=\"ignored\"} 1"))
        await harness.stop()
    }

    @Test(
        "notifications survive a restart of the server", arguments: ServiceHarness.Transport.allCases,
        HarnessStore.available)
    func survivesRestart(transport: ServiceHarness.Transport, store: HarnessStore) async throws {
        let harness = try ServiceHarness(transport: transport, store: store)
        try await harness.start()
        for type in ["email-disabled", "email-enabled", "consent-revoked"] {
            #expect(try await harness.post(harness.body(type: type)).status == 200)
        }
        await harness.stop()
        let service = try await harness.start()
        #expect(try await service.context.store.read { try $0.notificationCount() } == 3)
        await harness.stop()
    }

    @Test(
        "the endpoint allows only POST; health, readiness and metrics answer",
        arguments: ServiceHarness.Transport.allCases)
    func otherRoutes(transport: ServiceHarness.Transport) async throws {
        let harness = try ServiceHarness(adminToken: Self.adminToken, transport: transport)
        try await harness.start()
        let client = try harness.client
        let get = try await client.get("/apple/notifications")
        #expect(get.status == 405)
        #expect(get.headers["Allow"] == "POST")
        #expect(try await client.get("/healthz").status == 200)
        let ready = try await client.get("/readyz")
        #expect(ready.status == 200)
        let readiness = JSONValue.parseIfValid(ready.body)
        #expect(readiness?["status"] == "ready")
        if transport == .tls {
            // The harness's certificate is valid for 90 days.
            #expect((readiness?["certificateDaysUntilExpiry"]?.integerValue ?? 0) >= 89)
            // The expiry as a Unix time in seconds (Prometheus base units), 89 to 91 days from now.
            let metrics = try await harness.metrics()
            let expiry = try #require(
                PrometheusText.value(
                    in: metrics, name: "lifecycle_tls_certificate_expiry_timestamp_seconds", labels: [:]))
            let days = (expiry - Date().timeIntervalSince1970) / 86_400
            #expect(days > 89 && days < 91, "certificate expiry \(expiry) is \(days) days away")
        }
        #expect(try await client.get("/nope").status == 404)
        await harness.stop()
    }

    @Test("logs name the subject only by its keyed pseudonym", arguments: ServiceHarness.Transport.allCases)
    func logsHaveNoRawSubject(transport: ServiceHarness.Transport) async throws {
        let harness = try ServiceHarness(transport: transport)
        try await harness.start()
        _ = try await harness.post(harness.body(type: "consent-revoked"))
        await harness.stop()
        let log = harness.log
        #expect(log.contains("notification.accepted"))
        #expect(log.contains("\"subject\":\"ps_"))
        #expect(!log.contains(TestFixtures.subject))
    }
}
