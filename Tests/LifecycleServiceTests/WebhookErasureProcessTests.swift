import Foundation
import HTTP1
import LifecycleCore
import Testing

/// The `webhook` erasure target through the real `serve` (README, "Erasure"): it POSTs a signed
/// `account.erasure.requested` to the app's webhook; a 202 leaves the step waiting until
/// `lifecycle jobs complete ID TARGET` records the callback, or until `erasure.callbackTimeoutSeconds` pass,
/// when it is `unverified`. Observed from outside: the receiver, `jobs list --json` and exit statuses.
@Suite("Webhook erasure target through serve")
struct WebhookErasureProcessTests {
    static let subject = "000888.webhookerasure.0001"

    static func fixture(receiver: WebhookReceiver, erasure: JSONObject) async throws -> ServeFixture {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(webhook: receiver.url, erasureTargets: ["backend": ["type": "webhook"]])],
            extra: ["erasure": .object(erasure)])
        try fixture.writeSecret(ServeProcessTests.webhookSecret, to: "secrets/shop-webhook")
        return fixture
    }

    /// The subject's one job as `lifecycle jobs list --json --sub` prints it.
    static func job(_ fixture: ServeFixture) async throws -> JSONValue? {
        let listed = try await fixture.lifecycle([
            "jobs", "list", "--sub", subject, "--json", "--config", fixture.configurationFile,
        ])
        guard listed.status == 0 else { return nil }
        return JSONValue.parseIfValid(Array(listed.output.utf8))?["jobs"]?.arrayValue?.first
    }

    static func backendStep(_ job: JSONValue?) -> JSONValue? {
        job?["steps"]?.arrayValue?.first { $0["target"] == "backend" }
    }

    /// Sends the subject's account-delete and waits for the backend step's `account.erasure.requested`.
    static func deleteAndAwaitRequest(
        _ fixture: ServeFixture, _ receiver: WebhookReceiver, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> WebhookReceiver.Delivery {
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: subject)).status == 200,
            sourceLocation: sourceLocation)
        let asked = await eventually(timeout: .seconds(20)) { !requests(receiver).isEmpty }
        #expect(asked, "\(fixture.log.suffix(2000))", sourceLocation: sourceLocation)
        return try #require(requests(receiver).first, sourceLocation: sourceLocation)
    }

    /// The deliveries of `account.erasure.requested` the receiver got.
    static func requests(_ receiver: WebhookReceiver) -> [WebhookReceiver.Delivery] {
        receiver.received.filter { $0.json?["type"] == "account.erasure.requested" }
    }

    @Test("a 202 from the app leaves the step waiting; jobs complete ID TARGET finishes it and the job completes")
    func acceptedThenCompleted() async throws {
        let receiver = try WebhookReceiver(status: .accepted)
        let fixture = try await Self.fixture(receiver: receiver, erasure: ["pollMilliseconds": 100])
        try await fixture.start()
        let request = try await Self.deleteAndAwaitRequest(fixture, receiver)
        #expect(WebhookReceiver.isSigned(request, secret: ServeProcessTests.webhookSecret), "signed like the outbox")
        let data = try #require(request.json?["data"])
        #expect(data["target"] == "backend")
        #expect(data["sub"] == .string(Self.subject))
        #expect(data["categories"]?.arrayValue?.contains("profile") == true, "\(data)")
        #expect(data["deadline"]?.stringValue.flatMap(ISO8601Format.parse) != nil, "\(data)")
        let id = try #require(data["job_id"]?.integerValue)

        let waiting = await eventually(timeout: .seconds(10)) {
            Self.backendStep(try? await Self.job(fixture))?["status"] == "waiting-callback"
        }
        #expect(waiting, "\(fixture.log.suffix(2000))")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Self.job(fixture)?["status"] != "completed", "no callback, no completion")
        #expect(Self.requests(receiver).count == 1, "a waiting step is not asked again")

        let completed = try await fixture.lifecycle([
            "jobs", "complete", String(id), "backend", "--config", fixture.configurationFile,
        ])
        #expect(completed.status == 0, "\(completed)")
        let done = await eventually(timeout: .seconds(20)) {
            (try? await Self.job(fixture))?["status"] == "completed"
        }
        #expect(done, "\(fixture.log.suffix(2000))")
        #expect(Self.backendStep(try await Self.job(fixture))?["status"] == "done")
        let twice = try await fixture.lifecycle([
            "jobs", "complete", String(id), "backend", "--config", fixture.configurationFile,
        ])
        #expect(twice.status == 1, "nothing waits for a callback any more: \(twice)")
        // README, "Metrics": the job and step gauges, the attempts counter and the completion histogram.
        let counted = await eventually(timeout: .seconds(15)) {
            let jobs = try? await fixture.metric("lifecycle_erasure_jobs", ["status": "completed"])
            let steps = try? await fixture.metric("lifecycle_erasure_steps", ["target": "backend", "status": "done"])
            return jobs == 1 && steps == 1
        }
        #expect(counted, "the erasure gauges")
        #expect(
            try await fixture.metric(
                "lifecycle_erasure_step_attempts_total", ["target": "backend", "outcome": "waiting-callback"]) == 1)
        #expect(try await fixture.metric("lifecycle_erasure_completion_seconds_count") == 1)
        #expect(try await fixture.metric("lifecycle_erasure_jobs_overdue") == 0)
        #expect(await fixture.stop() == [0])
        await receiver.stop()

        // The report does not call the request verified: the backend's part is done on its own word.
        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let json = try #require(fixture.reportFiles().first { $0.hasSuffix(".json") && !$0.contains("/log/") })
        let report = try JSONValue.parse(
            try #require(FileManager.default.contents(atPath: fixture.directory.file("reports/" + json))))
        let row = try #require(report["subjects"]?.arrayValue?.first)
        #expect(row["outcome"] == "completed", "\(row)")
        #expect(row["verification"] == "acknowledged", "\(row)")
        let backend = row["targets"]?.arrayValue?.first { $0["target"] == "backend" }
        #expect(backend?["evidence"]?["responseStatus"] == .integer(202), "\(row)")
    }

    /// The admin route `POST /v1/jobs/{id}/steps/{target}/complete` (README: it calls what `jobs complete` does),
    /// here with an outcome and counts in its body; the webhook secret from `LIFECYCLE_WEBHOOK_SECRET_SHOP` alone,
    /// no secret file written.
    @Test(
        "the admin route records a callback's body: unverifiable ends the step unverified with its counts; the request is signed with the secret from the environment"
    )
    func completedThroughAdminRoute() async throws {
        let receiver = try WebhookReceiver(status: .accepted)
        let secret = "whsec_" + Data("secret from the environment only".utf8).base64EncodedString()
        // Every command the fixture runs gets the variable, as an operator's environment would.
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(webhook: receiver.url, erasureTargets: ["backend": ["type": "webhook"]])],
            extra: ["erasure": ["pollMilliseconds": 100]], environment: ["LIFECYCLE_WEBHOOK_SECRET_SHOP": secret])
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("secrets/shop-webhook")))
        try await fixture.start()
        let request = try await Self.deleteAndAwaitRequest(fixture, receiver)
        #expect(WebhookReceiver.isSigned(request, secret: secret), "signed with the environment's secret")
        let id = try #require(request.json?["data"]?["job_id"]?.integerValue)
        let waiting = await eventually(timeout: .seconds(10)) {
            Self.backendStep(try? await Self.job(fixture))?["status"] == "waiting-callback"
        }
        #expect(waiting, "\(fixture.log.suffix(2000))")

        let path = "/v1/jobs/\(id)/steps/backend/complete"
        let refused = try await fixture.admin("POST", path, body: Array(#"{"outcome": "gone"}"#.utf8))
        #expect(refused.status == 422 && refused.json?["error"] == "invalid_outcome", "\(refused)")
        let answered = try await fixture.admin(
            "POST", path, body: Array(#"{"outcome": "unverifiable", "rowsAffected": 3}"#.utf8))
        #expect(answered.status == 200, "\(answered)")
        let step = Self.backendStep(try await Self.job(fixture))
        #expect(step?["status"] == "unverified", "\(String(describing: step))")
        #expect(step?["rows_affected"] == .integer(3), "\(step?.serialized() ?? "none")")
        #expect(
            step?["response_status"] == .integer(202), "the 202 stays its evidence: \(step?.serialized() ?? "none")")
        let again = try await fixture.admin("POST", path)
        #expect(again.status == 409 && again.json?["error"] == "not_waiting", "\(again)")
        #expect(await fixture.stop() == [0])
        await receiver.stop()
    }

    @Test("a 202 whose callback never comes is unverified after erasure.callbackTimeoutSeconds")
    func callbackTimesOut() async throws {
        let receiver = try WebhookReceiver(status: .accepted)
        let fixture = try await Self.fixture(
            receiver: receiver, erasure: ["pollMilliseconds": 100, "callbackTimeoutSeconds": 1])
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.subject)).status == 200)
        let unverified = await eventually(timeout: .seconds(20)) {
            Self.backendStep(try? await Self.job(fixture))?["status"] == "unverified"
        }
        #expect(unverified, "\(fixture.log.suffix(2000))")
        #expect(try await Self.job(fixture)?["status"] == "unverified", "never counted as erased")
        let counted = await eventually(timeout: .seconds(15)) {
            let jobs = try? await fixture.metric("lifecycle_erasure_jobs", ["status": "unverified"])
            let steps = try? await fixture.metric(
                "lifecycle_erasure_steps", ["target": "backend", "status": "unverified"])
            return jobs == 1 && steps == 1
        }
        #expect(counted, "the erasure gauges")
        #expect((try await fixture.metric("lifecycle_erasure_completion_seconds_count") ?? 0) == 0, "not completed")
        #expect(Self.requests(receiver).count == 1)
        #expect(await fixture.stop() == [0])
        await receiver.stop()
    }
}
