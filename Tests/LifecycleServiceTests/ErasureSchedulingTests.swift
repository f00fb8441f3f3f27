import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import LifecycleStore
import Synchronization
import TestSupport
import Testing

@testable import LifecycleEngine

@Suite("Erasure scheduling, re-link cancellation, policy changes and webhook targets")
struct ErasureSchedulingTests {
    let subject = TestFixtures.subject

    @Test("consent-revoked then a re-link inside the waiting period cancels the cancellable job and keeps the other")
    func relinkCancelsOnlyCancellable() async throws {
        let scenario = try ErasureScenario()
        let harness = scenario.harness
        let service = try await harness.start()
        let revoked = try await harness.post(harness.body(type: "consent-revoked", subject: subject))
        #expect(revoked.status == 200)
        let store = service.context.store
        let scheduled = try await store.jobs(subject: subject)
        // default policy: rules[1] drops Apple tokens at once; rules[2] waits 30 days and a re-link cancels it.
        #expect(scheduled.map(\.job.plan.origin) == [.rule(index: 1), .rule(index: 2)])
        #expect(scheduled.map(\.job.plan.cancelIfRelinked) == [false, true])
        let waitingStart = try #require(scheduled.last).job.plan.notBefore
        #expect(waitingStart > SystemClock().now().adding(seconds: 29 * 86_400))

        let now = SystemClock().now()
        let context = TransitionContext(
            app: ServiceHarness.appID, subject: subject,
            input: AccountInput(
                kind: .linked, eventTime: now.adding(seconds: 1), receivedAt: now.adding(seconds: 1),
                identity: "sign-in-1"),
            source: "admin", notificationID: nil)
        let transitions = service.context.transitions
        try await store.write { [context] writer in _ = try transitions.apply(context, in: writer) }

        let after = try await store.jobs(subject: subject)
        #expect(after[0].status != .cancelled, "the token erasure is not cancellable")
        #expect(after[1].status == .cancelled)
        #expect(after[1].cancelReason?.hasPrefix(ErasureScheduler.relinkReason) == true)
        #expect(after[1].job.cancelledAt == now.adding(seconds: 1))
        try await service.erasureRunner.runOnce()
        let final = try await store.jobs(subject: subject)
        #expect(final[0].status == .completed)
        #expect(final[1].status == .cancelled && final[1].job.steps.allSatisfy { $0.attempts == 0 })
        await harness.stop()
    }

    @Test("a policy change after scheduling leaves scheduled jobs with their own window and reference")
    func policyChangeKeepsScheduledJobs() async throws {
        let scenario = try ErasureScenario()
        let harness = scenario.harness
        let service = try await harness.start()
        _ = try await harness.post(harness.body(type: "account-delete", subject: subject))
        let before = try #require(try await service.context.store.jobs(subject: subject).first)
        await harness.stop()

        let policyFile = harness.directory.file("policies/default.json")
        var text = try String(contentsOfFile: policyFile, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
        text = text.replacingOccurrences(of: "\"within\": \"P1M\"", with: "\"within\": \"P2M\"")
        try text.write(toFile: policyFile, atomically: true, encoding: .utf8)

        let restarted = try await harness.start()
        let other = ErasureScenario.otherSubject
        _ = try await harness.post(harness.body(type: "account-delete", subject: other))
        let store = restarted.context.store
        let unchanged = try #require(try await store.jobs(subject: subject).first)
        #expect(unchanged.job.plan == before.job.plan)
        #expect(unchanged.job.plan.policyReference.hasPrefix("default@1#"))
        let fresh = try #require(try await store.jobs(subject: other).first)
        #expect(fresh.job.plan.policyReference.hasPrefix("default@2#"))
        let sixWeeks = fresh.job.plan.eventTime.adding(seconds: 42 * 86_400)
        #expect(fresh.job.plan.deadline > sixWeeks, "the new job follows the new two-month window")
        #expect(unchanged.job.plan.deadline < unchanged.job.plan.eventTime.adding(seconds: 32 * 86_400))
        await harness.stop()
    }

    @Test("a webhook target is signed; 202 waits for the callback, and the callback completes the step")
    func webhookCallback() async throws {
        let received = Mutex<[HTTPRequest]>([])
        let receiver = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { request in
            received.withLock { $0.append(request) }
            return HTTPResponse(status: .accepted)
        }
        try receiver.start()
        let port = try #require(receiver.boundPort)
        let secret = ServiceHarness.webhookSecret
        var categories: JSONObject = [:]
        for category in DataCategory.allCases { categories[category.canonicalName] = ["backend", "self"] }
        let harness = try ServiceHarness(extraConfiguration: [
            "apps": [
                [
                    "id": .string(ServiceHarness.appID), "clientIds": [.string(ServiceHarness.clientID)],
                    "webhook": [
                        "url": .string("http://127.0.0.1:\(port)/hooks/lifecycle"), "secretFile": "webhook-secret",
                    ],
                    "targets": ["backend": ["type": "webhook"]], "categories": .object(categories),
                ]
            ],
            "erasure": ["runInServe": false],
        ])
        try FileManager.default.copyItem(
            atPath: ErasureScenario.shippedPolicies, toPath: harness.directory.file("policies"))
        try Data(secret.utf8).write(to: URL(fileURLWithPath: harness.directory.file("webhook-secret")))
        let context = try await ServiceContext.open(
            configuration: try harness.configuration, logSink: { _ in })
        let runner = ErasureJobRunner(
            configuration: context.configuration, store: context.store, log: context.log, metrics: context.metrics,
            clock: context.clock, owner: "test", webhookSigners: context.webhookSigners)
        let now = SystemClock().now()
        let transition = TransitionContext(
            app: ServiceHarness.appID, subject: subject,
            input: AccountInput(kind: .accountDeleted, eventTime: now, receivedAt: now, identity: "delete-1"),
            source: "admin", notificationID: nil)
        let transitions = context.transitions
        try await context.store.write { [transition] writer in _ = try transitions.apply(transition, in: writer) }
        let jobID = try #require(try await context.store.jobs(subject: subject).first).id

        try await runner.runOnce()
        var job = try await context.store.job(jobID)
        #expect(job.job.steps[0].status == .waitingCallback)
        #expect(job.job.steps[0].evidence.responseStatus == 202)
        #expect(job.job.steps[1].status == .pending, "self waits for the backend's callback")

        let request = try #require(received.withLock { $0.first })
        #expect(request.path == "/hooks/lifecycle")
        let body = try #require(JSONValue.parseIfValid(request.body))
        #expect(body["type"]?.stringValue == "account.erasure.requested")
        #expect(body["data"]?["job_id"]?.integerValue == jobID)
        #expect(body["data"]?["target"]?.stringValue == "backend")
        #expect(body["data"]?["sub"]?.stringValue == subject)
        let id = try #require(request.headers["webhook-id"])
        let timestamp = try #require(request.headers["webhook-timestamp"])
        let key = Array(Data(base64Encoded: String(secret.dropFirst("whsec_".count)))!)
        let expected = Data(HMACSHA256.authenticate(Array("\(id).\(timestamp).".utf8) + request.body, key: key))
            .base64EncodedString()
        #expect(request.headers["webhook-signature"] == "v1,\(expected)")

        let late = try await runner.completeCallback(jobID: jobID, target: "self")
        #expect(late == .notWaiting(.pending))
        let result = try await runner.completeCallback(jobID: jobID, target: "backend")
        guard case .recorded(let saved) = result else {
            Issue.record("callback not recorded: \(result)")
            return
        }
        #expect(saved.job.steps[0].status == .done)
        try await runner.runOnce()
        job = try await context.store.job(jobID)
        #expect(job.status == .completed)
        let again = try await runner.completeCallback(jobID: jobID, target: "backend")
        #expect(again == .notWaiting(.done), "a repeated callback changes nothing")

        // A second deletion whose callback never comes: after erasure.callbackTimeoutSeconds it is unverified.
        let other = ErasureScenario.otherSubject
        var silent = transition
        silent.subject = other
        try await context.store.write { [silent] writer in _ = try transitions.apply(silent, in: writer) }
        var impatient = context.configuration
        impatient.erasure.callbackTimeoutSeconds = 1
        let sweeper = ErasureJobRunner(
            configuration: impatient, store: context.store, log: context.log, metrics: context.metrics,
            clock: context.clock, owner: "sweeper", webhookSigners: context.webhookSigners)
        try await sweeper.runOnce()
        let silentID = try #require(try await context.store.jobs(subject: other).first).id
        #expect(try await context.store.job(silentID).job.steps[0].status == .waitingCallback)
        try await Task.sleep(for: .milliseconds(1100))
        try await sweeper.runOnce()
        let expired = try await context.store.job(silentID)
        #expect(expired.job.steps[0].status == .unverified, "acknowledged but never confirmed")
        #expect(expired.status == .unverified)
        await context.close()
        await receiver.shutdown()
    }

    @Test("an https webhook speaks TLS: a plain-HTTP receiver behind an https URL is a retryable transport failure")
    func httpsUsesTLS() async throws {
        let receiver = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { _ in
            HTTPResponse(status: .ok)
        }
        try receiver.start()
        let port = try #require(receiver.boundPort)
        let client = ErasureWebhookClient(
            url: "https://127.0.0.1:\(port)/hooks", signer: WebhookSigner(secret: [1]), timeout: .seconds(2))
        let result = await client.deliver(messageID: "m", body: [], at: SystemClock().now())
        await receiver.shutdown()
        guard case .failed(let evidence, let retryable) = result else {
            Issue.record("a plain-HTTP answer was accepted over https: \(result)")
            return
        }
        #expect(retryable)
        #expect(evidence.responseStatus == nil && evidence.errorCode != nil)
    }
}
