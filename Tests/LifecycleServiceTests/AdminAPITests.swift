import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleEngine
@testable import LifecycleServer

/// The admin listener over a real socket, as an operator or the app backend uses it.
@Suite("Admin API end to end")
struct AdminAPITests {
    static let token = "test-admin-token-0123456789abcdef"

    /// One admin exchange: status, parsed JSON body, headers.
    struct Answer {
        var status: Int
        var json: JSONValue?
        var headers: HTTPHeaders
        /// The body as UTF-8 text (the Prometheus exposition of `GET /metrics`).
        var text: String = ""
    }

    static func call(
        _ harness: ServiceHarness, _ method: String, _ target: String, body: String? = nil,
        token: String? = AdminAPITests.token
    ) async throws -> Answer {
        var headers = HTTPHeaders()
        if let token { try headers.add(name: "Authorization", value: "Bearer \(token)") }
        if body != nil { try headers.add(name: "Content-Type", value: "application/json") }
        let response = try await harness.adminClient.send(
            HTTPClientRequest(method: method, target: target, headers: headers, body: Array((body ?? "").utf8)))
        return Answer(
            status: response.status, json: JSONValue.parseIfValid(response.body), headers: response.headers,
            text: String(decoding: response.body, as: UTF8.self))
    }

    static func accountPath(_ subject: String = TestFixtures.subject, app: String = ServiceHarness.appID) -> String {
        "/v1/apps/\(app)/accounts/\(PercentDecoding.encode(subject))"
    }

    @Test(
        "without a token, with a wrong one, or with another scheme the answer is 401 with a Bearer challenge",
        arguments: [nil, "Bearer wrong-token", "Bearer \(token)x", "Basic \(token)", "Bearer"])
    func unauthorized(authorization: String?) async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        try await harness.start()
        var headers = HTTPHeaders()
        if let authorization { try headers.add(name: "Authorization", value: authorization) }
        for target in ["/v1/outbox", Self.accountPath(), "/openapi.json", "/no/such/route"] {
            let response = try await harness.adminClient.send(
                HTTPClientRequest(method: "GET", target: target, headers: headers))
            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
            #expect(JSONValue.parseIfValid(response.body)?["error"] == "unauthorized")
        }
        await harness.stop()
    }

    @Test("with the right token (scheme in any case) the outbox answers 200")
    func authorized() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        try await harness.start()
        #expect(try await Self.call(harness, "GET", "/v1/outbox").status == 200)
        var headers = HTTPHeaders()
        try headers.add(name: "Authorization", value: "bearer \(Self.token)")
        let response = try await harness.adminClient.send(
            HTTPClientRequest(method: "GET", target: "/v1/outbox", headers: headers))
        #expect(response.status == 200)
        await harness.stop()
    }

    @Test("an enabled admin listener without a token refuses to start, saying how to fix it")
    func refusesWithoutToken() async throws {
        let harness = try ServiceHarness(extraConfiguration: ["admin": ["host": "127.0.0.1", "port": 0]])
        await #expect {
            try await harness.start()
        } throws: { error in
            String(describing: error).contains("LIFECYCLE_ADMIN_TOKEN")
        }
    }

    @Test("the token can come from LIFECYCLE_ADMIN_TOKEN instead of a file")
    func tokenFromEnvironment() async throws {
        let harness = try ServiceHarness(extraConfiguration: ["admin": ["host": "127.0.0.1", "port": 0]])
        let context = try await ServiceContext.open(configuration: try harness.configuration, logSink: { _ in })
        let service = ServiceRuntime(context: context, environment: ["LIFECYCLE_ADMIN_TOKEN": "from-env"])
        try await service.start()
        let client = HTTPClient(host: "127.0.0.1", port: try #require(service.adminPort))
        let response = try await client.get("/v1/outbox", headers: ["Authorization": "Bearer from-env"])
        #expect(response.status == 200)
        await service.stop()
    }

    @Test(
        "link creates an unknown account as linked; link after consent-revoked re-links it",
        arguments: HarnessStore.available)
    func linkAndRelink(store: HarnessStore) async throws {
        let harness = try ServiceHarness(adminToken: Self.token, store: store)
        try await harness.start()
        let created = try await Self.call(harness, "PUT", Self.accountPath() + "/link")
        #expect(created.status == 200)
        #expect(created.json?["state"] == "linked")
        #expect(created.json?["disposition"] == "applied")

        let revoked = try await harness.post(harness.body(type: "consent-revoked"))
        #expect(revoked.json?["status"] == "accepted")
        #expect(try await Self.call(harness, "GET", Self.accountPath()).json?["state"] == "consent-revoked")

        let relinked = try await Self.call(harness, "PUT", Self.accountPath() + "/link")
        #expect(relinked.status == 200)
        #expect(relinked.json?["state"] == "linked")
        await harness.stop()
    }

    @Test(
        "a sign-in older than the revocation is stale and leaves the account consent-revoked",
        arguments: HarnessStore.available)
    func staleLink(store: HarnessStore) async throws {
        let harness = try ServiceHarness(adminToken: Self.token, store: store)
        try await harness.start()
        _ = try await harness.post(harness.body(type: "consent-revoked"))
        let stale = try await Self.call(
            harness, "PUT", Self.accountPath() + "/link", body: #"{"eventTime":"2020-01-01T00:00:00Z"}"#)
        #expect(stale.status == 200)
        #expect(stale.json?["disposition"] == "stale")
        #expect(stale.json?["state"] == "consent-revoked")
        await harness.stop()
    }

    @Test(
        "in-app deletion makes the account deleted; a later link is refused with 409 account_deleted",
        arguments: HarnessStore.available)
    func deletionThenLink(store: HarnessStore) async throws {
        let harness = try ServiceHarness(adminToken: Self.token, store: store)
        let service = try await harness.start()
        _ = try await Self.call(harness, "PUT", Self.accountPath() + "/link")
        let deleted = try await Self.call(harness, "POST", Self.accountPath() + "/deletion")
        #expect(deleted.status == 200)
        #expect(deleted.json?["state"] == "deleted")
        #expect(deleted.json?["deletedBy"] == "in-app-deletion")

        let refused = try await Self.call(harness, "PUT", Self.accountPath() + "/link")
        #expect(refused.status == 409)
        #expect(refused.json?["error"] == "account_deleted")
        let record = try await service.context.store.read {
            try $0.account(app: ServiceHarness.appID, subject: TestFixtures.subject)
        }
        #expect(record?.state == .deleted)
        #expect(
            service.context.metrics.value(
                AccountTransitionMetrics.name, [("from", "linked"), ("to", "deleted")]) == 1)
        await harness.stop()
    }

    @Test("link on an account Apple reported deleted is 409 account_deleted")
    func linkAfterAppleDeletion() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        try await harness.start()
        _ = try await harness.post(harness.body(type: "account-delete"))
        let refused = try await Self.call(harness, "PUT", Self.accountPath() + "/link")
        #expect(refused.status == 409)
        #expect(refused.json?["error"] == "account_deleted")
        await harness.stop()
    }

    @Test(
        "the account view lists every input with its disposition, reason, states, effects and source",
        arguments: HarnessStore.available)
    func historyAfterNotifications(store: HarnessStore) async throws {
        let harness = try ServiceHarness(adminToken: Self.token, store: store)
        try await harness.start()
        let base = SystemClock().now().adding(seconds: -600)
        _ = try await harness.post(harness.body(type: "email-disabled", eventTime: base))
        _ = try await harness.post(harness.body(type: "consent-revoked", eventTime: base.adding(seconds: 60)))
        // Older than the last e-mail input: stale, whatever arrived in between.
        _ = try await harness.post(harness.body(type: "email-enabled", eventTime: base.adding(seconds: -60)))
        _ = try await harness.post(harness.body(type: "account-delete", eventTime: base.adding(seconds: 120)))
        _ = try await harness.post(harness.body(type: "email-enabled", eventTime: base.adding(seconds: 180)))

        let answer = try await Self.call(harness, "GET", Self.accountPath())
        #expect(answer.status == 200)
        #expect(answer.json?["state"] == "deleted")
        #expect(answer.json?["sub"] == .string(TestFixtures.subject))
        let history = try #require(answer.json?["history"]?.arrayValue)
        #expect(
            history.map { $0["input"] } == [
                "email-disabled", "consent-revoked", "email-enabled", "account-deleted", "email-enabled",
            ])
        #expect(history.map { $0["disposition"] } == ["applied", "applied", "stale", "applied", "ignored"])
        #expect(history[4]["reason"] == "account deleted")
        #expect(history[0]["from"] == .null)
        #expect(history[1]["from"] == "email-off")
        #expect(history[1]["to"] == "consent-revoked")
        #expect(history[1]["effects"]?.arrayValue?.contains(["effect": "terminate-sessions"]) == true)
        #expect(history.allSatisfy { $0["source"] == "notification" && $0["notificationId"]?.integerValue != nil })
        #expect(answer.json?["outbox"] == .array([]))
        await harness.stop()
    }

    @Test("unknown app and unknown account are 404 with their own codes; a percent-encoded sub is decoded")
    func notFound() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        try await harness.start()
        #expect(try await Self.call(harness, "GET", Self.accountPath(app: "nope")).json?["error"] == "unknown_app")
        let missing = try await Self.call(harness, "GET", Self.accountPath("001234.unknown.0000"))
        #expect(missing.status == 404)
        #expect(missing.json?["error"] == "unknown_account")

        let odd = "001234.odd/sub with space"
        #expect(try await Self.call(harness, "PUT", Self.accountPath(odd) + "/link").status == 200)
        let shown = try await Self.call(harness, "GET", Self.accountPath(odd))
        #expect(shown.json?["sub"] == .string(odd))
        #expect(try await Self.call(harness, "GET", "/v1/apps/shop/accounts/%zz").status == 400)
        await harness.stop()
    }

    @Test(
        "a refresh token for an app without Apple credentials is 422 apple_not_configured; bad bodies are 400 or 422")
    func bodyValidation() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        let service = try await harness.start()
        let path = Self.accountPath() + "/link"
        let refused = try await Self.call(harness, "PUT", path, body: #"{"refreshToken":"r.abc"}"#)
        #expect(refused.status == 422)
        #expect(refused.json?["error"] == "apple_not_configured")
        #expect(refused.json?["description"]?.stringValue?.contains("r.abc") == false)
        for body in [
            #"{"refreshToken":"r.abc","authorizationCode":"c.abc"}"#, #"{"refreshToken":""}"#,
            #"{"authorizationCode":"has space"}"#, #"{"redirectUri":"https://x.example/cb"}"#,
            #"{"refreshToken":"r.abc","redirectUri":"https://x.example/cb"}"#, #"{"authorizationCode":7}"#,
        ] {
            let bad = try await Self.call(harness, "PUT", path, body: body)
            #expect(bad.status == 422 && bad.json?["error"] == "invalid_body", "\(body): \(bad)")
        }
        #expect(try await Self.call(harness, "PUT", path, body: "[1]").status == 400)
        #expect(try await Self.call(harness, "PUT", path, body: #"{"eventTime":"yesterday"}"#).status == 422)
        let future = SystemClock().now().adding(seconds: 3600).iso8601
        let ahead = try await Self.call(harness, "PUT", path, body: #"{"eventTime":"\#(future)"}"#)
        #expect(ahead.json?["error"] == "event_time_in_future")
        let stored = try await service.context.store.read {
            try $0.account(app: ServiceHarness.appID, subject: TestFixtures.subject)
        }
        #expect(stored == nil)
        await harness.stop()
    }

    @Test("unknown routes are 404 and a wrong method is 405 with Allow")
    func routing() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        try await harness.start()
        #expect(try await Self.call(harness, "GET", "/v1/nothing").status == 404)
        let wrong = try await Self.call(harness, "DELETE", Self.accountPath())
        #expect(wrong.status == 405)
        #expect(wrong.headers["Allow"] == "GET")
        let retry = try await Self.call(harness, "GET", "/v1/outbox/1/retry")
        #expect(retry.status == 405)
        #expect(retry.headers["Allow"] == "POST")
        await harness.stop()
    }

    /// A dead message for the test account, made the way the dispatcher makes one.
    static func deadMessage(in store: any Store) async throws -> Int64 {
        let now = SystemClock().now()
        return try await store.write { writer in
            let id = try writer.enqueueOutbox(
                NewOutboxMessage(
                    app: ServiceHarness.appID, subject: TestFixtures.subject,
                    kind: WebhookKind.sessionsTerminate.rawValue,
                    payload: #"{"type":"account.sessions.terminate"}"#, messageID: "msg_dead_test",
                    availableAt: now.adding(seconds: -1)))
            _ = try writer.claimOutbox(now: now, owner: "test", leaseUntil: now.adding(seconds: 30), limit: 10)
            try writer.failOutbox(
                id: id, owner: "test", error: "connection refused", statusCode: 503, nextAttemptAt: nil, at: now)
            return id
        }
    }

    @Test("GET /v1/outbox?status=dead lists a dead message; retry makes it pending; retry again is 409")
    func outboxListAndRetry() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        let service = try await harness.start()
        let id = try await Self.deadMessage(in: service.context.store)

        let dead = try await Self.call(harness, "GET", "/v1/outbox?status=dead")
        #expect(dead.status == 200)
        let messages = try #require(dead.json?["messages"]?.arrayValue)
        #expect(messages.map { $0["id"] } == [.integer(id)])
        #expect(messages.first?["lastError"] == "connection refused")
        #expect(messages.first?["lastStatusCode"] == 503)
        #expect(messages.first?["attempts"] == 1)
        #expect(messages.first?["payload"]?["type"] == "account.sessions.terminate")
        #expect(try await Self.call(harness, "GET", "/v1/outbox?status=pending").json?["messages"] == .array([]))

        _ = try await Self.call(harness, "PUT", Self.accountPath() + "/link")
        let account = try await Self.call(harness, "GET", Self.accountPath())
        #expect(account.json?["outbox"]?.arrayValue?.map { $0["status"] } == ["dead"])

        let retried = try await Self.call(harness, "POST", "/v1/outbox/\(id)/retry")
        #expect(retried.status == 200)
        #expect(retried.json?["status"] == "pending")
        #expect(retried.json?["attempts"] == 0)
        let again = try await Self.call(harness, "POST", "/v1/outbox/\(id)/retry")
        #expect(again.status == 409)
        #expect(again.json?["error"] == "not_dead")
        #expect(try await Self.call(harness, "POST", "/v1/outbox/999999/retry").status == 404)
        #expect(try await Self.call(harness, "GET", "/v1/outbox?status=lost").status == 400)
        #expect(try await Self.call(harness, "GET", "/v1/outbox?limit=0").status == 400)
        await harness.stop()
    }

    @Test("the outbox pages in id order with limit and after")
    func outboxPaging() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        let service = try await harness.start()
        let now = SystemClock().now()
        let ids = try await service.context.store.write { writer in
            try (0..<3).map { index in
                try writer.enqueueOutbox(
                    NewOutboxMessage(
                        app: "shop", subject: "sub-\(index)", kind: "account.sessions.terminate", payload: "{}",
                        messageID: "msg_page_\(index)", availableAt: now))
            }
        }
        let first = try await Self.call(harness, "GET", "/v1/outbox?limit=2")
        #expect(first.json?["messages"]?.arrayValue?.map { $0["id"] } == ids.prefix(2).map { .integer($0) })
        let next = try #require(first.json?["next"]?.integerValue)
        let second = try await Self.call(harness, "GET", "/v1/outbox?limit=2&after=\(next)")
        #expect(second.json?["messages"]?.arrayValue?.map { $0["id"] } == [.integer(ids[2])])
        #expect(second.json?["next"] == .null)
        await harness.stop()
    }

    /// Regression (schemathesis): `after` has `maximum: 9223372036854775807` in the description, and 19-digit
    /// values up to it were refused; past it they must be.
    @Test("every list route accepts after and ids up to Int64.max and refuses one past it with 400 or 404")
    func idsUpToInt64Max() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        try await harness.start()
        for route in ["/v1/outbox", "/v1/jobs", "/v1/findings"] {
            let largest = try await Self.call(harness, "GET", "\(route)?after=9223372036854775807")
            #expect(largest.status == 200, "\(route): \(String(describing: largest.json))")
            let past = try await Self.call(harness, "GET", "\(route)?after=9223372036854775808")
            #expect(past.status == 400)
            #expect(past.json?["error"] == "invalid_after")
            #expect(try await Self.call(harness, "GET", "\(route)?after=1000000000000000000").status == 200)
        }
        #expect(try await Self.call(harness, "POST", "/v1/outbox/9223372036854775807/retry").status == 404)
        #expect(
            try await Self.call(harness, "POST", "/v1/jobs/9223372036854775807/retry").json?["error"] == "unknown_job")
        await harness.stop()
    }

    /// Regression (schemathesis): `"rowsAffected": 158.0` is an integer in JSON Schema and was refused.
    @Test(
        "a step completion accepts counts written 158, 158.0 or 1.58e2 and refuses 158.5, -1 and 2^63",
        arguments: [
            ("{\"rowsAffected\": 158}", "unknown_step"), ("{\"rowsAffected\": 158.0}", "unknown_step"),
            ("{\"rowsAffected\": 1.58e2, \"verificationCount\": 0.0}", "unknown_step"),
            ("{\"rowsAffected\": 9223372036854775807}", "unknown_step"),
            ("{\"rowsAffected\": 158.5}", "invalid_count"), ("{\"rowsAffected\": -1}", "invalid_count"),
            ("{\"verificationCount\": 9223372036854775808}", "invalid_count"),
            ("{\"rowsAffected\": 1e400}", "invalid_body"), ("{\"rowsAffected\": \"158\"}", "invalid_count"),
        ])
    func stepCompletionCounts(body: String, code: String) async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        try await harness.start()
        let answer = try await Self.call(harness, "POST", "/v1/jobs/1/steps/app-db/complete", body: body)
        #expect(answer.json?["error"] == .string(code), "\(body)")
        #expect(answer.status == (code == "unknown_step" ? 404 : 422))
        await harness.stop()
    }

    /// Regression: a 4-digit fraction in eventTime trapped and took the whole process down.
    @Test("link and deletion accept an eventTime with 6 fractional digits and refuse one with 10 (422)")
    func eventTimeFractions() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        try await harness.start()
        let seconds = String(SystemClock().now().adding(seconds: -60).iso8601.prefix(19))
        let linked = try await Self.call(
            harness, "PUT", Self.accountPath() + "/link", body: "{\"eventTime\": \"\(seconds).123456Z\"}")
        #expect(linked.status == 200)
        #expect(linked.json?["state"] == "linked")
        for path in [Self.accountPath() + "/link", Self.accountPath() + "/deletion"] {
            let method = path.hasSuffix("link") ? "PUT" : "POST"
            let refused = try await Self.call(
                harness, method, path, body: "{\"eventTime\": \"\(seconds).1234567890Z\"}")
            #expect(refused.status == 422)
            #expect(refused.json?["error"] == "invalid_event_time")
        }
        await harness.stop()
    }
}
