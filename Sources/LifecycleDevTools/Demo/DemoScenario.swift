import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import LifecycleEngine
import LifecycleReconcile
import LifecycleReports
import LifecycleServer
import LifecycleStore
import Synchronization

/// `lifecycle demo`: the whole loop on throwaway files — a generated app database, a fresh service store, a
/// development key standing in for Apple's — from notification to signed report (issue 7). Every step is
/// the production code path: real HTTP on loopback, the live ingest, the erasure runner, the reconciler,
/// the report generator and verifier. Only Apple and the app are played by the demo.
package struct DemoScenario: Sendable {
    /// One thing the demo did and what came of it.
    package struct Step: Sendable {
        package var number: Int
        package var action: String
        package var line: String
        package var details: JSONObject
    }

    package struct Outcome: Sendable {
        package var reportHTML: String
        package var reportFiles: [String]
        package var findingCodes: [String]
        package var verifiedReports: Int
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let appID = "demo-shop"
    static let clientID = "com.example.demo-shop"

    /// The throwaway directory everything is written to.
    let directory: String
    /// The shipped policies the demo app is bound to.
    let policiesDirectory: String
    /// Called once per step as it finishes.
    let report: @Sendable (Step) -> Void

    package init(directory: String, policiesDirectory: String, report: @escaping @Sendable (Step) -> Void) {
        self.directory = directory
        self.policiesDirectory = policiesDirectory
        self.report = report
    }

    /// How long to wait for the outbox to deliver the session-termination and e-mail webhooks to the
    /// loopback receiver before going on without them.
    static let deliveryWait: Duration = .seconds(10)

    private var configurationFile: String { directory + "/lifecycle.json" }
    private var sampleApp: DemoSampleApp { DemoSampleApp(path: directory + "/sample-app.sqlite") }

    package func run() async throws -> Outcome {
        let steps = Mutex(0)
        let report = self.report
        func say(_ action: String, _ line: String, _ details: JSONObject = [:]) {
            let number = steps.withLock { count in
                count += 1
                return count
            }
            report(Step(number: number, action: action, line: line, details: details))
        }

        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let app = sampleApp
        try app.create()
        say(
            "sample-app",
            "created the sample app database \(app.path): users alice, bob, carol (apple_sub, email, sessions)",
            ["path": .string(app.path), "users": .integer(try app.userCount())])

        let pair = try DevKeyPair.generate()
        _ = try pair.write(to: directory)
        let receiver = DemoWebhookReceiver()
        try receiver.start()
        try writeConfiguration(webhookURL: receiver.url)
        let logLines = Mutex<[String]>([])
        let configuration = try ServiceConfiguration.load(file: configurationFile, environment: [:])
        let context = try await ServiceContext.open(
            configuration: configuration, logSink: { line in logLines.withLock { $0.append(line) } })
        let service = ServiceRuntime(context: context, configurationFile: configurationFile, environment: [:])
        do {
            try await service.start()
            say(
                "serve",
                "serving on http://127.0.0.1:\(service.publicPort ?? 0)\(configuration.publicListener.notificationPath)"
                    + " (store \(configuration.storage.url), policy default, app webhooks to \(receiver.url))",
                ["port": .integer(Int64(service.publicPort ?? 0))])
            let outcome = try await loop(service: service, pair: pair, receiver: receiver, say: say)
            await service.stop()
            await receiver.stop()
            try writeLog(logLines.withLock { $0 })
            return outcome
        } catch {
            await service.stop()
            await receiver.stop()
            try? writeLog(logLines.withLock { $0 })
            throw error
        }
    }

    private func loop(
        service: ServiceRuntime, pair: DevKeyPair, receiver: DemoWebhookReceiver,
        say: (String, String, JSONObject) -> Void
    ) async throws -> Outcome {
        let context = service.context
        let configuration = context.configuration
        let notifier = DemoNotifier(
            signer: pair.signer, audience: Self.clientID, issuer: configuration.apple.issuer,
            client: HTTPClient(host: "127.0.0.1", port: service.publicPort ?? 0, timeout: .seconds(10)),
            path: configuration.publicListener.notificationPath)
        let start = context.clock.now()
        // Event times spread over the past week, as a real backlog would be, so the report's charts have days.
        func hoursAgo(_ hours: Int64) -> Instant { start.adding(seconds: -hours * 3600) }
        let (alice, bob, carol) = (DemoSampleApp.alice, DemoSampleApp.bob, DemoSampleApp.carol)

        func send(
            _ type: String, _ user: DemoSampleApp.User, at eventTime: Instant, email: String? = nil, note: String = "",
            body: [UInt8]? = nil
        ) async throws -> [UInt8] {
            let now = context.clock.now()
            let bytes =
                try body
                ?? notifier.body(type: type, subject: user.subject, eventTime: eventTime, email: email, now: now)
            let answer = try await notifier.post(bytes)
            let label = "\(type) for \(user.name)"
            let when = eventTime.iso8601
            say(
                "notify",
                "POST \(label.padding(toLength: 27, withPad: " ", startingAt: 0)) event_time \(when)\(note) -> \(answer.summary)",
                [
                    "type": .string(type), "user": .string(user.name), "eventTime": .string(when),
                    "httpStatus": .integer(Int64(answer.status)), "answer": answer.document ?? .null,
                ])
            return bytes
        }

        _ = try await send("email-disabled", carol, at: hoursAgo(6 * 24))
        _ = try await send("email-enabled", alice, at: hoursAgo(5 * 24), email: alice.email)
        _ = try await send("consent-revoked", alice, at: hoursAgo(4 * 24))
        let deletion = try await send("account-delete", bob, at: hoursAgo(2 * 24))
        _ = try await send(
            "account-delete", bob, at: hoursAgo(2 * 24), note: " (the same token again)", body: deletion)
        _ = try await send(
            "email-disabled", alice, at: hoursAgo(5 * 24 + 2), note: " (older than her email-enabled: out of order)")
        _ = try await send("account-suspended", carol, at: hoursAgo(24), note: " (a type Apple may add one day)")

        let relinked = try await AccountOperations(context: context).link(app: Self.appID, subject: alice.subject)
        let cancelled = try await context.store.read { try $0.erasureJobs(app: Self.appID, subject: alice.subject) }
            .filter { $0.job.status == .cancelled }.count
        say(
            "relink",
            "alice signs in again (the app reports it: AccountOperations.link) -> "
                + "\(relinked["disposition"]?.stringValue ?? "?"), state \(relinked["state"]?.stringValue ?? "?"); "
                + "\(cancelled) erasure job cancelled because she came back",
            ["state": relinked["state"] ?? .null, "cancelledJobs": .integer(Int64(cancelled))])

        try await waitForDeliveries(store: context.store)
        let delivered = Dictionary(grouping: receiver.types, by: { $0 }).map { "\($1.count) \($0)" }.sorted()
        say(
            "webhooks",
            "the app's webhook receiver got \(receiver.types.count) signed deliveries: "
                + delivered.joined(separator: ", "),
            ["types": .array(receiver.types.map { .string($0) })])

        let summary = try await service.erasureRunner.runOnce()
        let bobJobs = try await context.store.read { try $0.erasureJobs(app: Self.appID, subject: bob.subject) }
        let bobLeft = try sampleApp.rows(of: bob.subject)
        guard let deletionJob = bobJobs.first,
            let appStep = deletionJob.job.steps.first(where: { $0.target == Self.appTarget })
        else { throw Failure(description: "no erasure job was scheduled for bob's deletion") }
        let retained = bobJobs.dropFirst().map { $0.job.plan.categories.map(\.canonicalName).joined(separator: ",") }
        say(
            "erasure",
            "ran the erasure jobs (\(summary.total) step attempts): bob's job #\(deletionJob.id) is "
                + "\(deletionJob.job.status.canonicalName), \(appStep.target) deleted \(appStep.evidence.rowsAffected ?? 0) row(s), "
                + "verification count \(appStep.evidence.verificationCount.map(String.init) ?? "?"); bob's rows left in the app: \(bobLeft); "
                + "kept under retention until their purge date: \(retained.joined(separator: "; "))",
            [
                "job": .integer(deletionJob.id), "status": .string(deletionJob.job.status.canonicalName),
                "rowsAffected": .integer(Int64(appStep.evidence.rowsAffected ?? 0)),
                "verificationCount": .integer(Int64(appStep.evidence.verificationCount ?? -1)),
                "rowsLeft": .integer(bobLeft),
            ])

        try sampleApp.insert(DemoSampleApp.dave)
        say(
            "plant",
            "planted a discrepancy: the app database now also holds dave, whom Apple never told the service about",
            [:])

        let reconcile = try await Reconciler(
            store: context.store, log: context.log, clock: context.clock, active: { context.current },
            owner: service.instanceID
        ).run(asOf: context.clock.now())
        let findings = reconcile.findings
        let listed = findings.map {
            "\($0.code.rawValue) (\($0.severity.rawValue)) for \(DemoSampleApp.name(of: $0.subject))"
        }
        say(
            "reconcile",
            "reconciled \(reconcile.apps.first?.recordsRead ?? 0) app records against the service's accounts: "
                + "\(findings.count) finding(s): " + (listed.isEmpty ? "none" : listed.joined(separator: "; ")),
            ["run": .integer(reconcile.runID), "findings": .array(findings.map { .string($0.code.rawValue) })])

        let now = context.clock.now()
        let written = try await ReportGenerator(configuration: configuration, store: context.store).generate(
            app: Self.appID, period: ReportPeriod.recent(asOf: now), at: now)
        let total = written.dataset.summary.total
        say(
            "report",
            "wrote the deletion-compliance report (\(total.received) deletion request(s), \(total.completed) completed, "
                + "\(total.pending) pending, \(total.overdue) overdue), manifest line \(written.manifestLine.sequence)",
            ["files": .array(written.files.map { .string($0) })])

        let verified = try ReportVerifier.verify(
            directory: configuration.reports.directory,
            publicKey: try ReportKeys.publicKey(
                path: ReportKeys.publicKeyPath(forSigningKey: configuration.reports.signingKeyFile)))
        if let broken = verified.broken { throw Failure(description: "the fresh report does not verify: \(broken)") }
        say(
            "verify",
            "verified \(verified.verifiedReports) report(s): file hashes, hash chain and Ed25519 signature, and "
                + "the transparency log (\(verified.logs.reduce(0) { $0 + $1.treeSize }) leaves, inclusion of the "
                + "report, \(verified.logs.reduce(0) { $0 + $1.receipts }) receipt(s))",
            ["verifiedReports": .integer(Int64(verified.verifiedReports))])

        guard let html = written.files.first(where: { $0.hasSuffix(".html") }) else {
            throw Failure(description: "the report generator wrote no HTML page")
        }
        return Outcome(
            reportHTML: html, reportFiles: written.files, findingCodes: findings.map(\.code.rawValue),
            verifiedReports: verified.verifiedReports)
    }

    /// Waits until the outbox holds no pending message (all delivered to the receiver), up to ``deliveryWait``.
    private func waitForDeliveries(store: any Store) async throws {
        let giveUp = ContinuousClock.now + Self.deliveryWait
        while ContinuousClock.now < giveUp {
            let pending = try await store.read { try $0.outbox(status: .pending, limit: 1, afterID: nil) }
            if pending.isEmpty { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static let appTarget = "app-db"

    /// The demo's `lifecycle.json`: loopback only, admin off, erasure run by the demo (not in the background),
    /// the app's data in the sample database, its records read from the same file.
    private func writeConfiguration(webhookURL: String) throws {
        let secret = "whsec_" + Data(SecureRandom.bytes(count: 32)).base64EncodedString()
        try FileManager.default.createDirectory(atPath: directory + "/secrets", withIntermediateDirectories: true)
        try Data(secret.utf8).write(to: URL(fileURLWithPath: directory + "/secrets/webhook-secret"))
        var categories = JSONObject()
        for category in DataCategory.allCases {
            // Apple tokens live only in the service; everything else in the app database and the service.
            categories[category.canonicalName] =
                category == .appleTokens ? ["self"] : [.string(Self.appTarget), "self"]
        }
        let app: JSONValue = [
            "id": .string(Self.appID), "clientIds": [.string(Self.clientID)],
            "webhook": ["url": .string(webhookURL), "secretFile": "secrets/webhook-secret"],
            "policy": "default",
            "targets": [
                Self.appTarget: [
                    "type": "sqlite", "path": .string(sampleApp.path),
                    "statements": .array(DemoSampleApp.eraseStatements.map { .string($0) }),
                    "verify": .string(DemoSampleApp.verifyQuery),
                ]
            ],
            "categories": .object(categories),
            "records": [
                "type": "sqlite", "path": .string(sampleApp.path), "query": .string(DemoSampleApp.recordsQuery),
            ],
        ]
        let config: JSONValue = [
            "storage": ["url": "sqlite:lifecycle.sqlite"],
            "public": ["host": "127.0.0.1", "port": 0],
            "admin": ["enabled": false],
            "apple": ["jwks": .string(DevKeyPair.jwksFileName)],
            "apps": [app],
            "policiesDirectory": .string(policiesDirectory),
            "pseudonymKeyFile": "secrets/pseudonym.key",
            "reports": [
                "directory": "reports", "signingKeyFile": "secrets/report-ed25519.pem",
            ],
            "erasure": ["runInServe": false],
            // The store is seconds old: a one-hour look-back with a two-hour threshold keeps the service's own
            // birth from reading as an outage (`notification-gap`).
            "reconcile": ["lookbackHours": 1, "gapThresholdSeconds": 7200],
            "outbox": ["pollMilliseconds": 100],
        ]
        try Data((config.serialized(pretty: true) + "\n").utf8).write(to: URL(fileURLWithPath: configurationFile))
    }

    private func writeLog(_ lines: [String]) throws {
        try Data(lines.map { $0.hasSuffix("\n") ? $0 : $0 + "\n" }.joined().utf8).write(
            to: URL(fileURLWithPath: directory + "/service.log"))
    }
}
