import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// Where `/metrics` is served, proved on the real `lifecycle serve` process (``ServeFixture``): on the admin
/// listener behind its bearer token, as a Prometheus scrape job with `authorization` reaches it; not on the
/// listener Apple posts to unless `public.metrics` is true; every answer counted by listener and status code,
/// the 405 and 413 no route used to see included; and the whole exposition clean for `promtool check metrics`.
@Suite("metrics on the admin listener, as a real process")
struct MetricsListenerTests {
    /// `GET /metrics` on the admin listener with `token` (none: no Authorization field).
    static func scrapeAdmin(_ fixture: ServeFixture, token: String?) async throws -> HTTPClientResponse {
        let client = HTTPClient(host: "127.0.0.1", port: fixture.adminPort, timeout: .seconds(10))
        var headers = HTTPHeaders()
        if let token { try headers.add(name: "Authorization", value: "Bearer \(token)") }
        return try await client.send(HTTPClientRequest(method: "GET", target: "/metrics", headers: headers))
    }

    @Test("by default the public listener answers /metrics 404; the admin listener serves it only with the token")
    func adminOnlyByDefault() async throws {
        let fixture = try await ServeFixture()
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: "001234.metrics.1")).status
                == 200)

        let publicAnswer = try await fixture.publicClient().get("/metrics")
        #expect(publicAnswer.status == 404)
        #expect(!String(decoding: publicAnswer.body, as: UTF8.self).contains("lifecycle_"))

        let missing = try await Self.scrapeAdmin(fixture, token: nil)
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"] == "Bearer realm=\"lifecycle-admin\"")
        #expect(!String(decoding: missing.body, as: UTF8.self).contains("lifecycle_notifications_total"))
        let wrong = try await Self.scrapeAdmin(fixture, token: "not-the-admin-token-0123456789")
        #expect(wrong.status == 401)

        let scrape = try await Self.scrapeAdmin(fixture, token: ServeFixture.adminToken)
        #expect(scrape.status == 200)
        #expect(scrape.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        let text = String(decoding: scrape.body, as: UTF8.self)
        #expect(
            PrometheusText.value(
                in: text, name: "lifecycle_notifications_total",
                labels: ["type": "consent-revoked", "outcome": "accepted"])
                == 1)
        // The refusals are counted too: the public 404 and the two admin 401s.
        #expect(
            PrometheusText.value(
                in: text, name: "lifecycle_http_responses_total", labels: ["listener": "public", "code": "404"])
                == 1)
        #expect(
            PrometheusText.value(
                in: text, name: "lifecycle_http_responses_total", labels: ["listener": "admin", "code": "401"])
                == 2)
        #expect(await fixture.stop() == [0])
    }

    @Test("public.metrics: true also serves /metrics on the public listener")
    func publicWhenConfigured() async throws {
        let fixture = try await ServeFixture()
        try fixture.updatePublicListener(["metrics": true])
        try await fixture.start()
        let answer = try await fixture.publicClient().get("/metrics")
        #expect(answer.status == 200)
        #expect(answer.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(String(decoding: answer.body, as: UTF8.self).contains("# TYPE lifecycle_heartbeats_total counter"))
        #expect(try await Self.scrapeAdmin(fixture, token: ServeFixture.adminToken).status == 200)
        #expect(await fixture.stop() == [0])
    }

    @Test("405 and 413 answers are counted by listener and code, the 413 the server gives before any route")
    func refusalsCounted() async throws {
        let fixture = try await ServeFixture()
        try fixture.updatePublicListener(["maxBodyBytes": 1024])
        try await fixture.start()
        let client = fixture.publicClient()
        #expect(try await client.get("/apple/notifications").status == 405)
        #expect(try await client.get("/apple/notifications").status == 405)
        let oversized = try await client.post(
            "/apple/notifications", headers: ["Content-Type": "application/json"],
            body: Array(repeating: UInt8(ascii: "x"), count: 4096))
        #expect(oversized.status == 413)
        let adminPost = try await fixture.admin("POST", "/metrics")
        #expect(adminPost.status == 405)

        func count(_ listener: String, _ code: String) async throws -> Double? {
            try await fixture.metric("lifecycle_http_responses_total", ["listener": listener, "code": code])
        }
        #expect(try await count("public", "405") == 2)
        #expect(try await count("public", "413") == 1)
        #expect(try await count("admin", "405") == 1)
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "rejections by reason, admin requests by route and status, and the last accepted time move with the traffic"
    )
    func alertingSeriesFollowTraffic() async throws {
        let fixture = try await ServeFixture()
        try await fixture.start()
        let before = fixture.now.secondsSinceEpoch
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: "001234.metrics.3")).status
                == 200)
        let refused = try await fixture.post(
            fixture.notification(type: "account-delete", subject: "001234.metrics.4", audience: "com.example.other"))
        #expect(refused.status == 400)
        let reason = try #require(refused.json?["code"]?.stringValue)
        #expect(try await fixture.admin("GET", "/v1/outbox").status == 200)
        #expect(try await fixture.admin("GET", "/v1/jobs/99/nothing").status == 404)
        let text = try await fixture.metrics()
        #expect(PrometheusText.value(in: text, name: "lifecycle_rejections_total", labels: ["reason": reason]) == 1)
        #expect(
            PrometheusText.value(
                in: text, name: "lifecycle_admin_requests_total", labels: ["route": "outbox", "status": "200"]) == 1)
        #expect(
            PrometheusText.value(
                in: text, name: "lifecycle_admin_requests_total", labels: ["route": "other", "status": "404"]) == 1)
        let accepted = try #require(
            PrometheusText.value(
                in: text, name: "lifecycle_last_accepted_notification_timestamp_seconds", labels: [:]))
        #expect(accepted >= Double(before) && accepted <= Double(fixture.now.secondsSinceEpoch))
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "promtool check metrics finds nothing in a real serve's scrape (TLS, traffic, refusals, an admin call)",
        .enabled(
            if: SystemTool.find("promtool") != nil,
            "promtool is missing: install Debian's prometheus package (make test does)"))
    func promtoolClean() async throws {
        let promtool = try #require(SystemTool.find("promtool"))
        let fixture = try await ServeFixture(tls: true)
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: "001234.metrics.2")).status
                == 200)
        #expect(try await fixture.post(Array("{}".utf8)).status == 400)
        #expect(try await fixture.publicClient().get("/apple/notifications").status == 405)
        #expect(try await fixture.admin("GET", "/v1/outbox").status == 200)
        let text = try await fixture.metrics()
        #expect(text.contains("lifecycle_tls_certificate_expiry_timestamp_seconds "))
        #expect(text.contains("lifecycle_http_request_duration_seconds_bucket"))
        let check = try await promtool.run(["check", "metrics"], input: text)
        #expect(check.status == 0, "promtool check metrics:\n\(check.output)")
        #expect(check.output.isEmpty, "promtool check metrics:\n\(check.output)")
        #expect(await fixture.stop() == [0])
    }
}
