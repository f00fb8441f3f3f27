import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools
import Synchronization
import TestSupport
import Testing

@testable import LifecycleEngine

/// What `lifecycle serve` does on its own and on a signal, proved on the real process (the built executable,
/// ``ServeFixture``) and observed only from outside: files, the admin API, `/metrics`, the log file, exit
/// statuses and `lifecycle` commands. Each behaviour the README or `serve --help` claims for the background
/// or for a signal is listed here with the test that proves it; a new one is added to this list and to this
/// file.
///
/// Background work, with nothing but `serve` running:
/// - the outbox delivers signed webhooks (`outbox.*`) ............................ `backgroundWork`
/// - `webhook-id` is unique across stores and instances and stable across retries  `webhookIDs`
/// - the erasure runner executes due steps (`erasure.runInServe`) ................ `backgroundWork`
/// - a heartbeat every `reconcile.heartbeatSeconds` (`lifecycle_heartbeats_total`)  `backgroundWork`
/// - at `reconcile.dailyAt` in `reconcile.timeZone` (whatever `erasure.runInServe` says) the reconcile runs,
///   then every app's reports for the day, which `lifecycle report verify` accepts  `scheduledReconcile`
/// - several instances on one PostgreSQL database: exactly one writes the day's reports, and one that reaches
///   the schedule later the same day does not write them again ................ `dailyReportsOncePerDay`
/// - `keys.rotateEveryDays` (set by a reload): the master key is rotated once the one in force is that old,
///   the old one retired and removed from the key file ............................ `scheduledRotation`
/// - a master-key rotation a crash interrupted is completed at start ............... `startCompletesRotation`
/// - every `keys.fileCheckSeconds` a rewritten key file is checked against the store: refused when it lacks
///   the key in force (`keys.file_refused`, once) ........................... `reloadRefusesKeyFileWithoutKeyInForce`;
///   held at once when a rotation elsewhere rewrote it .......................... `KeyRotationTests.twoInstances`
/// - after each erasure batch the store's files keep no byte of what was erased (WAL truncated, key table
///   vacuumed), also across a kill -9 ....... `SQLiteForensicErasureTests`, `PostgresForensicErasureTests`,
///   `ErasureCrashTests`
///
/// Signals:
/// - SIGTERM and SIGINT: stop accepting, finish what is in flight, exit 0 ...... every test's `stop()`,
///   `interruptStops`
/// - SIGHUP adds an app with its webhook and erasure mapping ..................... `reloadAddsApp`
/// - SIGHUP removes an app: its notifications get `400 invalid_audience` ........ `reloadRemovesApp`
/// - SIGHUP: a changed webhook URL or secret is used for the next delivery ....... `reloadChangesWebhook`
/// - SIGHUP: a changed policy applies to jobs scheduled after the reload only .... `reloadChangesPolicy`
/// - SIGHUP with an invalid file keeps the running configuration, one log line and
///   `lifecycle_config_reloads_total{result="refused"}` ........................... `reloadRefusesInvalidFile`
/// - SIGHUP with a master key file lacking the key in force refuses the whole reload, the keys held kept
///   .......................................................................... `reloadRefusesKeyFileWithoutKeyInForce`
/// - SIGHUP destroys in the key file the master keys the store has retired ...... `KeyRotationTests.twoInstances`
/// - SIGHUP re-fetches the key set ............................................... `reloadFetchesKeys`
/// - SIGHUP reloads the TLS certificate for new connections ....................... `reloadsCertificate`
///
/// The reconcile lock of a killed run (`kill -9` of `lifecycle reconcile`): `ReconcileLockTests`. Leases
/// taken over from a `serve` killed with `kill -9`, and the stop that leaves the rest of a backlog to leases:
/// `MultiInstanceTests`.
@Suite("serve in the background and on signals, as a real process")
struct ServeProcessTests {
    static let subject = "001234.0123456789abcdef0123456789abcdef.0101"
    static let otherSubject = "009999.fedcba9876543210fedcba9876543210.0202"
    static let webhookSecret = "whsec_" + Data("serve-fixture-webhook-secret-one".utf8).base64EncodedString()
    static let otherSecret = "whsec_" + Data("serve-fixture-webhook-secret-two".utf8).base64EncodedString()

    /// Short delays so background work happens within a test.
    static let quickWork: JSONObject = [
        "outbox": [
            "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 200, "pollMilliseconds": 100, "leaseSeconds": 5,
        ],
        "erasure": [
            "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 200, "pollMilliseconds": 100, "leaseSeconds": 30,
            "runInServe": true,
        ],
    ]

    static func merged(_ base: JSONObject, _ extra: JSONObject) -> JSONObject {
        var result = base
        for member in extra { result[member.key] = member.value }
        return result
    }

    // MARK: Background work

    @Test(
        "with nothing but serve running: the webhook is delivered signed, the erasure job runs, heartbeats are recorded"
    )
    func backgroundWork() async throws {
        let receiver = try WebhookReceiver()
        let fixture = try await ServeFixture(
            apps: [
                ServeFixture.app(
                    webhook: receiver.url, erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))
            ], extra: Self.merged(Self.quickWork, ["reconcile": ["heartbeatSeconds": 1]]))
        try fixture.writeSecret(Self.webhookSecret, to: "secrets/shop-webhook")
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject, Self.otherSubject])
        try await fixture.start()

        let answer = try await fixture.post(fixture.notification(type: "account-delete", subject: Self.subject))
        #expect(answer.status == 200)

        let deliveries = await receiver.waitFor(1)
        #expect(deliveries.count == 1)
        if let delivery = deliveries.first {
            #expect(WebhookReceiver.isSigned(delivery, secret: Self.webhookSecret))
            #expect(delivery.json?["type"] == "account.sessions.terminate")
            #expect(delivery.json?["data"]?["sub"]?.stringValue == Self.subject)
        }
        let erased = await eventually(timeout: .seconds(15)) {
            let jobs = try? await fixture.admin("GET", "/v1/jobs")
            return jobs?.json?["jobs"]?.arrayValue?.first?["status"] == "completed"
        }
        #expect(erased, "the erasure job completed without any command")
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 0)
        #expect(try fixture.usersLeft(Self.otherSubject, in: "app.sqlite") == 1)

        let first = try await fixture.metric("lifecycle_heartbeats_total") ?? 0
        let beating = await eventually(timeout: .seconds(10)) {
            (try? await fixture.metric("lifecycle_heartbeats_total") ?? 0) ?? 0 >= first + 2
        }
        #expect(beating, "heartbeats every reconcile.heartbeatSeconds")
        #expect(try await fixture.metric("lifecycle_last_heartbeat_timestamp_seconds") ?? 0 > 0)
        #expect(await fixture.stop() == [0])
        await receiver.stop()
    }

    @Test("webhook-id: two fresh stores given the same notifications use different ids; a retry keeps its id")
    func webhookIDs() async throws {
        // The first two requests fail, so the first message of each instance is delivered twice.
        let receiver = try WebhookReceiver(first: [.serviceUnavailable])
        var fixtures: [ServeFixture] = []
        for _ in 0..<2 {
            let fixture = try await ServeFixture(
                apps: [ServeFixture.app(webhook: receiver.url)], extra: Self.quickWork)
            try fixture.writeSecret(Self.webhookSecret, to: "secrets/shop-webhook")
            try await fixture.start()
            fixtures.append(fixture)
        }
        let subjects = ["000001.aaaa.0001", "000002.bbbb.0002", "000003.cccc.0003"]
        for (index, fixture) in fixtures.enumerated() {
            for subject in subjects {
                #expect(
                    try await fixture.post(fixture.notification(type: "consent-revoked", subject: subject)).status
                        == 200)
            }
            // One instance at a time, so the receiver's first (failed) answer goes to the first instance.
            let expected = subjects.count * (index + 1)
            _ = await eventually(timeout: .seconds(10)) { Set(receiver.received.map(\.id)).count >= expected }
        }
        let deliveries = await receiver.waitFor(subjects.count * 2 + 1)
        let ids = deliveries.map(\.id)
        #expect(Set(ids).count == subjects.count * 2, "six messages, six ids: \(ids)")
        #expect(ids.allSatisfy { $0.hasPrefix("msg_") && $0.count > "msg_".count + 16 })
        let retried = try #require(deliveries.first)
        let again = deliveries.dropFirst().filter { $0.id == retried.id }
        #expect(again.count == 1, "the failed first delivery was retried under the same webhook-id")
        #expect(again.first?.body == retried.body)
        for fixture in fixtures { #expect(await fixture.stop() == [0]) }
        await receiver.stop()
    }

    // MARK: Scheduled reconcile and daily reports

    /// Seconds between the fixture's clock offset and the schedule: long enough for `serve` to start and take
    /// a notification on a loaded machine (6 s was not, with the suite running in parallel beside a build),
    /// since a `dailyAt` already passed when `serve` starts waits for the next day.
    static let scheduleLead: Int64 = 15

    /// The next 03:15 in Seoul, and a clock offset that puts the processes `lead` seconds before it.
    static func scheduleAhead(lead: Int64) -> (dailyAt: String, zone: String, offset: Int64, day: String) {
        let zone = TimeZone(identifier: "Asia/Seoul")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let now = Date()
        let next = calendar.nextDate(
            after: now.addingTimeInterval(Double(lead) + 30), matching: DateComponents(hour: 3, minute: 15, second: 0),
            matchingPolicy: .nextTime)!
        let offset = Int64(next.timeIntervalSince(now).rounded()) - lead
        let day = calendar.dateComponents([.year, .month, .day], from: next)
        let name = String(format: "%04d-%02d-%02d", day.year!, day.month!, day.day!)
        return ("03:15", zone.identifier, offset, name)
    }

    @Test(
        "at reconcile.dailyAt serve reconciles, then writes every app's reports for the day, which report verify accepts (erasure.runInServe false)"
    )
    func scheduledReconcile() async throws {
        let schedule = Self.scheduleAhead(lead: Self.scheduleLead)
        let fixture = try await ServeFixture(
            apps: [
                ServeFixture.app(
                    erasureTargets: ServeFixture.sqliteTarget("app.sqlite"),
                    records: ["type": "jsonl", "path": "records.jsonl"]),
                ServeFixture.app(id: "blog", clientID: "com.example.blog"),
            ],
            extra: [
                "erasure": ["runInServe": false],
                "reconcile": ["dailyAt": .string(schedule.dailyAt), "timeZone": .string(schedule.zone)],
            ],
            clockOffsetSeconds: schedule.offset)
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject])
        // A subject only the app knows: the reconcile's finding shows it ran.
        try #"{"sub": "000777.unknown.0777"}"#.write(
            toFile: fixture.directory.file("records.jsonl"), atomically: true, encoding: .utf8)
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.subject)).status == 200)
        #expect(fixture.reportFiles().isEmpty, "nothing before the schedule")

        // Each app's files, manifest line and transparency log are written one after another: wait for serve to
        // say both apps' reports are done (`report.generated`, logged after the log is published), not for files.
        let written = await eventually(timeout: .seconds(40)) {
            Set(fixture.logEvents("report.generated").compactMap { $0["app"]?.stringValue }) == ["shop", "blog"]
        }
        #expect(written, "reports of both apps after the scheduled reconcile: \(fixture.reportFiles())")
        let findings = try await fixture.admin("GET", "/v1/findings?app=shop")
        #expect(findings.json?["findings"]?.arrayValue?.contains { $0["code"] == "unknown-to-service" } == true)
        let files = fixture.reportFiles()
        #expect(files.contains { $0.hasPrefix("shop/") && $0.hasSuffix("-deletion-compliance.json") })
        #expect(files.contains { $0.hasPrefix("blog/") && $0.hasSuffix("-deletion-compliance.html") })
        if let report = files.first(where: { $0.hasPrefix("shop/") && $0.hasSuffix(".json") }) {
            let text = try String(contentsOfFile: fixture.directory.file("reports/" + report), encoding: .utf8)
            #expect(text.contains("unknown-to-service"), "the report carries the reconcile that ran before it")
        }
        let verified = try await fixture.lifecycle(["report", "verify", "--config", fixture.configurationFile])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("verified 2 reports in 2 manifests"), "\(verified)")
        // serve's daily reports join each app's transparency log like generate's.
        #expect(verified.output.contains("/shop/log: "), "\(verified)")
        #expect(verified.output.contains("/blog/log: "), "\(verified)")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "two serve instances on one PostgreSQL: exactly one writes the day's reports; the one reaching the schedule later that day does not write them again",
        .enabled(if: HarnessStore.postgresServer != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)")
    )
    func dailyReportsOncePerDay() async throws {
        let server = try #require(HarnessStore.postgresServer)
        let database = try await PostgresTestDatabase.create(serverURL: server)
        do {
            try await dailyReportsOncePerDay(databaseURL: database.url)
            await database.drop()
        } catch {
            await database.drop()
            throw error
        }
    }

    private func dailyReportsOncePerDay(databaseURL: String) async throws {
        let schedule = Self.scheduleAhead(lead: Self.scheduleLead)
        var instances: [ServeFixture] = []
        // Instances on one store hold the same master key (the one in force there), here from the environment.
        let masterKey = Hex.encode(SecureRandom.bytes(count: 32))
        // The second instance's clock is 8 s behind: it reaches 03:15 after the first has written the reports.
        for lag: Int64 in [0, 8] {
            let fixture = try await ServeFixture(
                apps: [ServeFixture.app(), ServeFixture.app(id: "blog", clientID: "com.example.blog")],
                extra: [
                    "storage": ["url": .string(databaseURL)],
                    "reconcile": ["dailyAt": .string(schedule.dailyAt), "timeZone": .string(schedule.zone)],
                ],
                clockOffsetSeconds: schedule.offset - lag,
                environment: [MasterKeyring.environmentVariable: masterKey])
            try await fixture.start()
            instances.append(fixture)
        }
        let (first, later) = (instances[0], instances[1])
        let written = await eventually(timeout: .seconds(40)) {
            Set(first.logEvents("report.generated").compactMap { $0["app"]?.stringValue }) == ["shop", "blog"]
        }
        #expect(written, "the first instance wrote the day's reports: \(first.reportFiles())")
        let skipped = await eventually(timeout: .seconds(40)) { !later.logEvents("report.skipped").isEmpty }
        #expect(skipped, "the later instance reached the schedule and skipped the reports")
        #expect(later.reportFiles().isEmpty, "written once for the day: \(later.reportFiles())")
        #expect(later.logEvents("report.skipped").first?["day"]?.stringValue == schedule.day)
        for app in ["shop", "blog"] {
            let manifest = try String(
                contentsOfFile: first.directory.file("reports/\(app)/manifest.jsonl"), encoding: .utf8)
            #expect(manifest.split(separator: "\n").count == 1, "\(app): one manifest line")
        }
        let verified = try await first.lifecycle(["report", "verify", "--config", first.configurationFile])
        #expect(verified.status == 0, "\(verified)")
        for fixture in instances { #expect(await fixture.stop() == [0]) }
    }

    // MARK: Signals

    /// The names `top -H`, `perf` and `/proc/<pid>/task/*/comm` show, as the README's benchmark section lists.
    @Test(
        "an unknown event type is stored and answered 200 ignored under type=unknown; the same event under a new jti is 200 duplicate"
    )
    func ignoredAndDuplicateAnswers() async throws {
        let fixture = try await ServeFixture()
        try await fixture.start()
        let subject = "000222.answers.0001"
        let unknown = try await fixture.post(fixture.notification(type: "account-frozen-someday", subject: subject))
        #expect(unknown.status == 200 && unknown.json?["status"] == "ignored", "\(unknown)")
        #expect(
            try await fixture.metric("lifecycle_notifications_total", ["type": "unknown", "outcome": "ignored"]) == 1)
        let store = fixture.directory.file("lifecycle.sqlite")
        #expect(
            try StoreFile.count("SELECT count(*) FROM notifications WHERE type = 'account-frozen-someday'", in: store)
                == 1, "stored under its own type name, never dropped")

        let eventTime = fixture.now.adding(seconds: -60)
        let first = try await fixture.post(
            fixture.notification(type: "email-disabled", subject: subject, eventTime: eventTime))
        let again = try await fixture.post(
            fixture.notification(type: "email-disabled", subject: subject, eventTime: eventTime))
        #expect(first.json?["status"] == "accepted", "\(first)")
        #expect(again.status == 200 && again.json?["status"] == "duplicate", "a new jti, the same event: \(again)")
        #expect(
            try await fixture.metric(
                "lifecycle_notifications_total", ["type": "email-disabled", "outcome": "duplicate"]) == 1)
        #expect(await fixture.stop() == [0])
    }

    @Test("serve names its store writer, checkpoint, reader and event-loop threads")
    func threadNames() async throws {
        let fixture = try await ServeFixture()
        let process = try await fixture.start()
        let pid = process.process.processIdentifier
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let names = Set(
            tasks.compactMap { task in
                (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            })
        process.kill(signal: SIGTERM)
        #expect(await process.waitForExit() == 0)
        #expect(
            names.isSuperset(of: ["lc-db-writer", "lc-db-checkpnt", "lc-db-reader-0", "lc-http-loop-0"]), "\(names)")
    }

    @Test("SIGINT stops serve like SIGTERM: exit 0")
    func interruptStops() async throws {
        let fixture = try await ServeFixture()
        let process = try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: Self.subject)).status == 200)
        process.kill(signal: SIGINT)
        #expect(await process.waitForExit() == 0)
        #expect(!fixture.logEvents("serve.stopped").isEmpty)
    }

    @Test(
        "SIGHUP adding an app with a webhook and an erasure mapping: its next notification gets a signed webhook and its erasure job"
    )
    func reloadAddsApp() async throws {
        let receiver = try WebhookReceiver()
        let fixture = try await ServeFixture(apps: [ServeFixture.app()], extra: Self.quickWork)
        let process = try await fixture.start()
        let blogBefore = try await fixture.post(
            fixture.notification(type: "account-delete", subject: Self.subject, audience: "com.example.blog"))
        #expect(blogBefore.status == 400, "not configured yet")

        try fixture.writeSecret(Self.otherSecret, to: "secrets/blog-webhook")
        try fixture.createAppDatabase("blog.sqlite", subjects: [Self.subject])
        try fixture.updateConfiguration { config in
            config["apps"] = [
                ServeFixture.app(),
                ServeFixture.app(
                    id: "blog", clientID: "com.example.blog", webhook: receiver.url,
                    erasureTargets: ServeFixture.sqliteTarget("blog.sqlite")),
            ]
        }
        try await fixture.reload(process)

        let answer = try await fixture.post(
            fixture.notification(type: "account-delete", subject: Self.subject, audience: "com.example.blog"))
        #expect(answer.status == 200)
        let deliveries = await receiver.waitFor(1)
        #expect(deliveries.first?.json?["data"]?["app"] == "blog")
        #expect(deliveries.first.map { WebhookReceiver.isSigned($0, secret: Self.otherSecret) } == true)
        let erased = await eventually(timeout: .seconds(15)) {
            let jobs = try? await fixture.admin("GET", "/v1/jobs")
            return jobs?.json?["jobs"]?.arrayValue?.contains { $0["app"] == "blog" && $0["status"] == "completed" }
                == true
        }
        #expect(erased, "the added app's erasure job was scheduled and run")
        #expect(try fixture.usersLeft(Self.subject, in: "blog.sqlite") == 0)
        #expect(await fixture.stop() == [0])
        await receiver.stop()
    }

    @Test("SIGHUP removing an app: its notifications are answered 400 invalid_audience, the other app's still 200")
    func reloadRemovesApp() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(), ServeFixture.app(id: "blog", clientID: "com.example.blog")])
        let process = try await fixture.start()
        #expect(
            try await fixture.post(
                fixture.notification(type: "consent-revoked", subject: Self.subject, audience: "com.example.blog")
            ).status == 200)
        try fixture.updateConfiguration { $0["apps"] = [ServeFixture.app()] }
        try await fixture.reload(process)
        let refused = try await fixture.post(
            fixture.notification(type: "consent-revoked", subject: Self.otherSubject, audience: "com.example.blog"))
        #expect(refused.status == 400)
        #expect(refused.json?["code"] == "invalid_audience")
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: Self.otherSubject)).status
                == 200)
        #expect(await fixture.stop() == [0])
    }

    @Test("a receiver that holds one webhook holds one delivery slot: the other accounts' webhooks keep arriving")
    func slowWebhookHoldsOneSlot() async throws {
        let receiver = try WebhookReceiver(holdFirst: .seconds(20))
        let outbox: JSONObject = [
            "outbox": [
                "concurrency": 2, "pollMilliseconds": 100, "timeoutMilliseconds": 30_000, "leaseSeconds": 60,
            ]
        ]
        let fixture = try await ServeFixture(apps: [ServeFixture.app(webhook: receiver.url)], extra: outbox)
        try fixture.writeSecret(Self.webhookSecret, to: "secrets/shop-webhook")
        _ = try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: "000001.a.0001")).status
                == 200)
        #expect(await receiver.waitFor(1).count == 1, "the first webhook reached the receiver, which holds it")
        let started = ContinuousClock.now
        for subject in ["000002.b.0002", "000003.c.0003", "000004.d.0004"] {
            #expect(
                try await fixture.post(fixture.notification(type: "consent-revoked", subject: subject)).status == 200)
        }
        let arrived = await receiver.waitFor(4, timeout: .seconds(15))
        #expect(arrived.count == 4, "three webhooks delivered through the free slot")
        #expect(ContinuousClock.now - started < .seconds(15), "without waiting for the held one")
        #expect(await fixture.stop() == [0])
        await receiver.stop()
    }

    @Test("SIGHUP: a changed webhook URL, then a changed secret, is used for the next delivery")
    func reloadChangesWebhook() async throws {
        let first = try WebhookReceiver()
        let second = try WebhookReceiver()
        let fixture = try await ServeFixture(apps: [ServeFixture.app(webhook: first.url)], extra: Self.quickWork)
        try fixture.writeSecret(Self.webhookSecret, to: "secrets/shop-webhook")
        let process = try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: "000001.a.0001")).status
                == 200)
        #expect(await first.waitFor(1).count == 1)

        try fixture.updateConfiguration { $0["apps"] = [ServeFixture.app(webhook: second.url)] }
        try await fixture.reload(process)
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: "000002.b.0002")).status
                == 200)
        let moved = await second.waitFor(1)
        #expect(moved.count == 1, "delivered to the new URL")
        #expect(moved.first.map { WebhookReceiver.isSigned($0, secret: Self.webhookSecret) } == true)

        try fixture.writeSecret(Self.otherSecret, to: "secrets/shop-webhook")
        try await fixture.reload(process)
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: "000003.c.0003")).status
                == 200)
        let rotated = await second.waitFor(2)
        #expect(rotated.count == 2)
        #expect(
            rotated.last.map { WebhookReceiver.isSigned($0, secret: Self.otherSecret) } == true,
            "signed with the new secret")
        #expect(first.received.count == 1, "nothing more went to the old URL")
        #expect(await fixture.stop() == [0])
        await first.stop()
        await second.stop()
    }

    @Test(
        "SIGHUP: a changed policy applies to jobs scheduled after the reload; a job scheduled before keeps its policy and deadline"
    )
    func reloadChangesPolicy() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: ["erasure": ["runInServe": false]])
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject, Self.otherSubject])
        let process = try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.subject)).status == 200)
        let before = try #require(try await fixture.admin("GET", "/v1/jobs").json?["jobs"]?.arrayValue?.first)

        try fixture.writePolicy(ServeFixture.immediatePolicy(version: 2, within: "P10D"))
        try await fixture.reload(process)
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.otherSubject)).status
                == 200)
        let jobs = try #require(try await fixture.admin("GET", "/v1/jobs").json?["jobs"]?.arrayValue)
        #expect(jobs.count == 2)
        #expect(jobs.first == before, "the job scheduled before the reload is unchanged")
        let after = try #require(jobs.last)
        #expect(before["policy"]?.stringValue?.hasPrefix("immediate@1#") == true)
        #expect(after["policy"]?.stringValue?.hasPrefix("immediate@2#") == true, "\(after)")
        let deadline = { (job: JSONValue) in
            (ISO8601Format.parse(job["deadline"]?.stringValue ?? "")?.millisecondsSinceEpoch ?? 0)
                - (ISO8601Format.parse(job["event_time"]?.stringValue ?? "")?.millisecondsSinceEpoch ?? 0)
        }
        #expect(deadline(after) == 10 * 86_400_000, "the new policy's 10 days")
        #expect(deadline(before) >= 28 * 86_400_000, "the old policy's month")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "SIGHUP with an invalid file keeps the running configuration entirely and says why in one log line and a metric"
    )
    func reloadRefusesInvalidFile() async throws {
        let first = try WebhookReceiver()
        let second = try WebhookReceiver()
        let fixture = try await ServeFixture(apps: [ServeFixture.app(webhook: first.url)], extra: Self.quickWork)
        try fixture.writeSecret(Self.webhookSecret, to: "secrets/shop-webhook")
        let process = try await fixture.start()
        // Valid JSON that parses, but the added app's webhook has no secret: the whole file is refused, including
        // the webhook URL change of the first app.
        try fixture.updateConfiguration { config in
            config["apps"] = [
                ServeFixture.app(webhook: second.url),
                ServeFixture.app(
                    id: "blog", clientID: "com.example.blog", webhook: second.url, secretFile: "secrets/missing"),
            ]
        }
        try await fixture.reload(process, expecting: "refused")
        let refusals = fixture.logEvents("reload.refused")
        #expect(refusals.count == 1)
        #expect(refusals.first?["error"]?.stringValue?.contains("apps[blog].webhook.secretFile") == true, "\(refusals)")
        #expect(try await fixture.metric("lifecycle_config_reloads_total", ["result": "refused"]) == 1)

        let blog = try await fixture.post(
            fixture.notification(type: "consent-revoked", subject: Self.subject, audience: "com.example.blog"))
        #expect(blog.status == 400, "the refused file's new app is not served")
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: Self.subject)).status == 200)
        #expect(await first.waitFor(1).count == 1, "the running webhook URL is still used")
        #expect(second.received.isEmpty)

        try "{ not json".write(toFile: fixture.configurationFile, atomically: true, encoding: .utf8)
        try await fixture.reload(process, expecting: "refused")
        #expect(try await fixture.metric("lifecycle_config_reloads_total", ["result": "refused"]) == 2)
        #expect(fixture.logEvents("reload.refused").count == 2)
        #expect(await fixture.stop() == [0])
        await first.stop()
        await second.stop()
    }

    @Test(
        "SIGHUP with a master key file that lacks the key in force refuses the whole reload, keeps the keys held, and a rewrite of the file between reloads is refused too"
    )
    func reloadRefusesKeyFileWithoutKeyInForce() async throws {
        let fixture = try await ServeFixture(extra: ["keys": ["fileCheckSeconds": 1]])
        let process = try await fixture.start()
        let keyFile = fixture.directory.file("var/secrets/master.key")
        let original = try String(contentsOfFile: keyFile, encoding: .utf8)
        // The same reload adds an app and replaces the key file by one with another key only.
        try fixture.updateConfiguration { config in
            config["apps"] = [ServeFixture.app(), ServeFixture.app(id: "blog", clientID: "com.example.blog")]
        }
        try (Hex.encode(SecureRandom.bytes(count: 32)) + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        try await fixture.reload(process, expecting: "refused")
        let refusal = fixture.logEvents("reload.refused").first?["error"]?.stringValue ?? ""
        #expect(refusal.contains("does not hold master key") && refusal.contains("master.key"), "\(refusal)")
        let blog = try await fixture.post(
            fixture.notification(type: "consent-revoked", subject: Self.subject, audience: "com.example.blog"))
        #expect(blog.status == 400, "the app of the refused reload is not served")
        let enabled = try await fixture.post(fixture.notification(type: "email-enabled", subject: Self.subject))
        #expect(enabled.status == 200, "the keys held still seal")
        // Between reloads the watcher sees the rewritten file and refuses it the same way, once.
        let watched = await eventually(timeout: .seconds(10)) { !fixture.logEvents("keys.file_refused").isEmpty }
        #expect(watched, "keys.file_refused")
        try await Task.sleep(for: .seconds(2))
        #expect(fixture.logEvents("keys.file_refused").count == 1, "one line per problem, not one per check")

        // The right key file back: the same reload is applied, with the app.
        try original.write(toFile: keyFile, atomically: true, encoding: .utf8)
        try await fixture.reload(process)
        let after = try await fixture.post(
            fixture.notification(type: "consent-revoked", subject: Self.subject, audience: "com.example.blog"))
        #expect(after.status == 200)
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "SIGHUP setting keys.rotateEveryDays: serve rotates once the key in force is that old — new key in force, the old retired and gone from the key file, what was sealed before still opens"
    )
    func scheduledRotation() async throws {
        // The store and its master key are made now; serve runs two days later.
        let fixture = try await ServeFixture(clockOffsetSeconds: 2 * 86_400)
        let migrated = try await fixture.lifecycle(
            ["migrate", "--config", fixture.configurationFile], environment: [SystemClock.offsetVariable: "0"])
        #expect(migrated.status == 0, "\(migrated)")
        let process = try await fixture.start()
        let email = "r7t2k9m4q1@privaterelay.appleid.com"
        let enabled = try await fixture.post(Self.emailNotification(fixture, email: email))
        #expect(enabled.status == 200)
        let keyFile = fixture.directory.file("var/secrets/master.key")
        let old = try MasterKeyring.load(file: keyFile, environment: [:]).ids
        #expect(old.count == 1)
        try await Task.sleep(for: .seconds(1))
        #expect(try MasterKeyring.load(file: keyFile, environment: [:]).ids == old, "no schedule, no rotation")

        try fixture.updateConfiguration { config in config["keys"] = ["rotateEveryDays": 1] }
        try await fixture.reload(process)
        let rotated = await eventually(timeout: .seconds(15)) { !fixture.logEvents("keys.scheduled_rotation").isEmpty }
        #expect(rotated, "keys.scheduled_rotation")
        let held = try MasterKeyring.load(file: keyFile, environment: [:]).ids
        #expect(held.count == 1 && held != old, "the key file holds only the new key: \(held)")
        let status = try await fixture.lifecycle(["keys", "status", "--json", "--config", fixture.configurationFile])
        let keys = JSONValue.parseIfValid(Array(status.output.utf8))?["masterKeys"]?.arrayValue ?? []
        #expect(keys.first { $0["id"]?.stringValue == old[0] }?["state"] == "retired", "\(status)")
        #expect(keys.first { $0["state"] == "current" }?["id"]?.stringValue == held.first)
        let export = try await fixture.lifecycle([
            "account", "export", "--app", "shop", "--sub", Self.subject, "--json", "--config",
            fixture.configurationFile,
        ])
        #expect(export.output.contains(email), "sealed before the rotation, opened after it: \(export)")
        #expect(try await fixture.post(Self.emailNotification(fixture, email: email)).status == 200)
        #expect(await fixture.stop() == [0])
    }

    @Test("serve completes at start a master-key rotation a crash interrupted (a key still retiring)")
    func startCompletesRotation() async throws {
        let fixture = try await ServeFixture()
        // What a rotation killed after its switch leaves: a new key in the file and in force, the old one
        // retiring, a data key still wrapped by it.
        let configuration = try ServiceConfiguration.load(file: fixture.configurationFile, environment: [:])
        let context = try await ServiceContext.open(configuration: configuration, logSink: { _ in }, environment: [:])
        let candidate = try context.vault.candidate(
            app: "shop", subject: Self.subject, scope: .notifications, at: SystemClock().now())
        _ = try await context.store.write { try $0.insertSubjectKey(candidate.stored) }
        let old = try #require(context.vault.currentMasterKeyID)
        let new = try context.vault.keyring.addFreshKey()
        _ = try await context.store.write { try $0.switchMasterKey(to: new, at: SystemClock().now()) }
        await context.close()

        try await fixture.start()
        let keyFile = fixture.directory.file("var/secrets/master.key")
        let finished = await eventually(timeout: .seconds(15)) {
            (try? MasterKeyring.load(file: keyFile, environment: [:]).ids) == [new]
        }
        #expect(finished, "the retired key left the key file")
        // Logged once the rotation returns, a moment after it rewrote the file.
        let logged = await eventually(timeout: .seconds(5)) {
            !fixture.logEvents("keys.rotation_completed").isEmpty
        }
        #expect(logged, "keys.rotation_completed")
        let status = try await fixture.lifecycle(["keys", "status", "--json", "--config", fixture.configurationFile])
        let keys = JSONValue.parseIfValid(Array(status.output.utf8))?["masterKeys"]?.arrayValue ?? []
        #expect(keys.first { $0["id"]?.stringValue == old }?["state"] == "retired", "\(status)")
        #expect(keys.first { $0["id"]?.stringValue == new }?["liveDataKeys"] == 1, "the data key was re-wrapped")
        #expect(await fixture.stop() == [0])
    }

    /// An `email-enabled` notification carrying `email`, signed at the fixture's now.
    static func emailNotification(_ fixture: ServeFixture, email: String) -> [UInt8] {
        let issued = fixture.now
        var event = TestTokenFactory.event(
            type: "email-enabled", subject: subject, eventTime: .integer(issued.millisecondsSinceEpoch))
        event["email"] = .string(email)
        event["is_private_email"] = "true"
        let claims = TestTokenFactory.claims(
            event: event, audience: ServeFixture.clientID, issuedAt: issued,
            overrides: ["jti": .string(NotificationSigner.makeJTI())])
        return NotificationBody.encode(jws: fixture.tokens.token(claims: claims))
    }

    @Test("SIGHUP re-fetches the key set: a token signed by a key added to the JWKS is accepted after the reload")
    func reloadFetchesKeys() async throws {
        let fixture = try await ServeFixture()
        let process = try await fixture.start()
        let newKey = TestTokenFactory(key: TestKeys.fresh(), keyID: "second-key")
        func signedByNewKey(_ subject: String) -> [UInt8] {
            let event = TestTokenFactory.event(
                type: "consent-revoked", subject: subject, eventTime: .integer(fixture.now.millisecondsSinceEpoch))
            let claims = TestTokenFactory.claims(
                event: event, audience: ServeFixture.clientID, issuedAt: fixture.now,
                overrides: ["jti": .string(NotificationSigner.makeJTI())])
            return NotificationBody.encode(jws: newKey.token(claims: claims))
        }
        #expect(try await fixture.post(signedByNewKey(Self.subject)).status != 200)
        let both = JWKSet(keys: fixture.tokens.jwks.keys + newKey.jwks.keys)
        try Data(both.encoded()).write(to: URL(fileURLWithPath: fixture.directory.file("jwks.json")))
        try await fixture.reload(process)
        #expect(try await fixture.post(signedByNewKey(Self.otherSubject)).status == 200)
        #expect(await fixture.stop() == [0])
    }

    @Test("SIGHUP reloads the TLS certificate: new connections get the new one (readyz days until expiry)")
    func reloadsCertificate() async throws {
        let fixture = try await ServeFixture(tls: true)
        let process = try await fixture.start()
        let before = try await fixture.publicClient().get("/readyz")
        let beforeDays = JSONValue.parseIfValid(before.body)?["certificateDaysUntilExpiry"]?.integerValue ?? 0
        #expect(beforeDays > 30)

        let authority = try #require(fixture.authority)
        let shortLived = try DevelopmentCertificates.issue(
            DevelopmentCertificates.Request(
                commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], validUntil: 5 * 86_400),
            signedBy: authority)
        try shortLived.certificatePEM.write(
            toFile: fixture.directory.file("server.crt"), atomically: true, encoding: .utf8)
        try shortLived.privateKeyPEM.write(
            toFile: fixture.directory.file("server.key"), atomically: true, encoding: .utf8)
        try await fixture.reload(process)
        let after = try await fixture.publicClient().get("/readyz")
        let afterDays = JSONValue.parseIfValid(after.body)?["certificateDaysUntilExpiry"]?.integerValue ?? 99
        #expect(afterDays <= 5)
        #expect(await fixture.stop() == [0])
    }

    /// README, "HTTPS": the reload happens "without dropping connections". A keep-alive TLS connection opened
    /// before the SIGHUP (openssl s_client, the client nobody here wrote) is answered on after it.
    @Test("a TLS keep-alive connection opened before the certificate reload is still answered after it")
    func certificateReloadKeepsConnections() async throws {
        let fixture = try await ServeFixture(tls: true)
        let process = try await fixture.start()
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        client.arguments = [
            "s_client", "-connect", "127.0.0.1:\(fixture.publicPort)", "-servername", "localhost", "-quiet",
            "-CAfile", fixture.directory.file("ca.pem"),
        ]
        let input = Pipe()
        let output = Pipe()
        client.standardInput = input
        client.standardOutput = output
        client.standardError = FileHandle.nullDevice
        let received = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            received.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try client.run()
        defer {
            output.fileHandleForReading.readabilityHandler = nil
            if client.isRunning { client.terminate() }
        }
        @Sendable func answers() -> Int { received.withLock { $0.components(separatedBy: "HTTP/1.1 200").count - 1 } }
        let request = Data("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        input.fileHandleForWriting.write(request)
        #expect(await eventually(timeout: .seconds(20)) { answers() == 1 }, "\(received.withLock { $0 })")

        try await fixture.reload(process)
        #expect(client.isRunning, "the connection was dropped at the reload")
        input.fileHandleForWriting.write(request)
        #expect(
            await eventually(timeout: .seconds(20)) { answers() == 2 },
            "no answer on the held connection after the reload: \(received.withLock { $0 })")
        #expect(await fixture.stop() == [0])
    }
}
