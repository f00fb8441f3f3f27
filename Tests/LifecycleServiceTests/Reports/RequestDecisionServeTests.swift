import Foundation
import LifecycleCore
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleServer

/// Extensions, legal holds and refusals of deletion requests through the real `lifecycle serve`, its admin
/// API and `lifecycle request`, observed from outside: the request ledger (`GET /v1/requests`), the written
/// report files, the jobs the runner did or did not run and the app's own database.
@Suite("Request decisions through lifecycle serve")
struct RequestDecisionServeTests {
    static let subject = "000777.decide0000decide0000decide0000.0777"

    /// Erases a day after the deletion (so the request stays open), within one month; GDPR-style extension.
    static let waitingPolicy = """
        {
          "id": "immediate", "version": 1, "jurisdiction": "EU", "timezone": "UTC",
          "extension": {"further": "P2M", "noticeWithin": "P1M", "basis": "GDPR Art. 12(3)"},
          "rules": [
            {"on": ["account-deleted"], "erase": ["profile", "content"], "after": "P1D", "within": "P1M",
             "basis": "test"}
          ]
        }
        """

    /// Without `runner`, serve runs no erasure: its jobs stay open, so only their deadlines decide.
    static func fixture(
        clockOffsetSeconds: Int64 = 0, policy: String = waitingPolicy, runner: Bool = true
    ) async throws -> ServeFixture {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: runner ? ServeProcessTests.quickWork : ["erasure": ["runInServe": false]],
            clockOffsetSeconds: clockOffsetSeconds)
        try fixture.writePolicy(policy)
        try fixture.createAppDatabase("app.sqlite", subjects: [subject])
        return fixture
    }

    static var path: String { "/v1/apps/shop/accounts/\(subject)/request/" }

    static func body(_ members: JSONObject) -> [UInt8] { Array(JSONValue.object(members).serialized().utf8) }

    /// Posts the deletion (of `eventTime`, else now) and waits for its `jobs` erasure jobs to be scheduled; their
    /// deadlines.
    @discardableResult
    static func deletion(_ fixture: ServeFixture, eventTime: Instant? = nil, jobs: Int = 1) async throws -> [String] {
        #expect(
            try await fixture.post(
                fixture.notification(type: "account-delete", subject: subject, eventTime: eventTime)
            ).status == 200)
        let scheduled = await eventually(timeout: .seconds(20)) {
            (try? await fixture.admin("GET", "/v1/jobs?status=scheduled"))?.json?["jobs"]?.arrayValue?.count == jobs
        }
        #expect(scheduled, "the erasure jobs wait for their day")
        return try await scheduledDeadlines(fixture)
    }

    /// The deadlines of the scheduled jobs, as the admin API writes them.
    static func scheduledDeadlines(_ fixture: ServeFixture) async throws -> [String] {
        let jobs = try await fixture.admin("GET", "/v1/jobs?status=scheduled")
        return (jobs.json?["jobs"]?.arrayValue ?? []).compactMap { $0["deadline"]?.stringValue }
    }

    static func reportJSON(_ fixture: ServeFixture) throws -> JSONValue {
        let file = try #require(fixture.reportFiles().first { $0.hasSuffix("-deletion-compliance.json") })
        return try JSONValue.parse(
            Array(try #require(FileManager.default.contents(atPath: fixture.directory.file("reports/" + file)))))
    }

    static func reportFile(_ fixture: ServeFixture, suffix: String) throws -> String {
        let file = try #require(fixture.reportFiles().first { $0.hasSuffix(suffix) })
        return try String(contentsOfFile: fixture.directory.file("reports/" + file), encoding: .utf8)
    }

    @Test(
        "an extension within the policy's limit shows in GET /v1/requests and the written reports; one past the limit or with notice outside the window is refused naming the field"
    )
    func extensionRecorded() async throws {
        let fixture = try await Self.fixture()
        try await fixture.start()
        try await Self.deletion(fixture)
        let now = fixture.now
        let tooFar = try await fixture.admin(
            "POST", Self.path + "extension",
            body: Self.body([
                "reason": "many systems to search", "noticeAt": .string(now.iso8601),
                "deadline": .string(now.adding(seconds: 100 * 86_400).iso8601),
            ]))
        #expect(tooFar.status == 422 && tooFar.json?["error"] == "invalid_deadline", "\(tooFar)")
        #expect(tooFar.json?["description"]?.stringValue?.hasPrefix("deadline ") == true, "\(tooFar)")
        #expect(tooFar.json?["description"]?.stringValue?.contains("beyond the limit") == true, "\(tooFar)")
        let lateNotice = try await fixture.admin(
            "POST", Self.path + "extension",
            body: Self.body([
                "reason": "many systems to search", "noticeAt": .string(now.adding(seconds: 40 * 86_400).iso8601),
                "deadline": .string(now.adding(seconds: 60 * 86_400).iso8601),
            ]))
        #expect(lateNotice.status == 422 && lateNotice.json?["error"] == "invalid_notice_at", "\(lateNotice)")
        #expect(lateNotice.json?["description"]?.stringValue?.hasPrefix("noticeAt ") == true, "\(lateNotice)")
        let unknown = try await fixture.admin(
            "POST", Self.path + "extension", body: Self.body(["reason": "x", "because": "no"]))
        #expect(unknown.status == 422 && unknown.json?["error"] == "unknown_field", "\(unknown)")

        let newDeadline = now.adding(seconds: 60 * 86_400)
        let recorded = try await fixture.admin(
            "POST", Self.path + "extension",
            body: Self.body([
                "reason": "many systems to search", "noticeAt": .string(now.iso8601),
                "deadline": .string(newDeadline.iso8601),
            ]))
        #expect(recorded.status == 200 && recorded.json?["kind"] == "extension", "\(recorded)")
        #expect(recorded.json?["newDeadline"] == .string(newDeadline.iso8601))

        let again = try await fixture.lifecycle(
            Self.requestCommand(fixture, "extend") + [
                "--reason", "more", "--notice-at", now.iso8601, "--deadline",
                now.adding(seconds: 61 * 86_400).iso8601,
            ])
        #expect(again.status == 1 && again.errors.contains("already_extended"), "\(again)")
        #expect(again.errorLines.count == 1, "one line: \(again.errors)")

        let ledger = try await fixture.admin("GET", "/v1/requests?app=shop")
        let entry = try #require(ledger.json?["requests"]?.arrayValue?.first, "\(ledger)")
        #expect(entry["extension"]?["reason"] == "many systems to search", "\(entry)")
        #expect(entry["extension"]?["noticeAt"] == .string(now.iso8601))
        #expect(entry["extension"]?["newDeadline"] == .string(newDeadline.iso8601))
        #expect(entry["deadline"] == .string(newDeadline.iso8601), "the request's deadline is the extended one")
        #expect(entry["holds"] == [] && entry["denial"] == .null && entry["response"] == "open")

        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let report = try Self.reportJSON(fixture)
        #expect(report["schema"] == "accountlifecycle.deletion-report/5")
        #expect(report["subjects"]?.arrayValue?.first?["extension"] == entry["extension"])
        let csv = try Self.reportFile(fixture, suffix: "-deletion-compliance.csv")
        #expect(csv.contains("extended to \(newDeadline.iso8601)"), "\(csv)")
        let html = try Self.reportFile(fixture, suffix: "-deletion-compliance.html")
        #expect(html.contains("many systems to search") && html.contains("GDPR Art. 12(3)"))
        #expect(await fixture.stop() == [0])
    }

    /// Two erasures of one deletion with different deadlines: the profile within one month, the content within
    /// three.
    static let twoDeadlinesPolicy = """
        {
          "id": "immediate", "version": 1, "jurisdiction": "EU", "timezone": "UTC",
          "extension": {"further": "P2M", "noticeWithin": "P1M", "basis": "GDPR Art. 12(3)"},
          "rules": [
            {"on": ["account-deleted"], "erase": ["profile"], "after": "P1D", "within": "P1M", "basis": "test"},
            {"on": ["account-deleted"], "erase": ["content"], "after": "P1D", "within": "P3M", "basis": "test"}
          ]
        }
        """

    @Test(
        "an extension is refused once a deadline it would move has passed, however early its noticeAt; the jobs keep their deadlines"
    )
    func extensionAfterDeadlineRefused() async throws {
        let fixture = try await Self.fixture(policy: Self.twoDeadlinesPolicy, runner: false)
        try await fixture.start()
        let now = fixture.now
        // Deleted 40 days ago: the profile's month has run out, the content's three months have not.
        let eventTime = now.adding(seconds: -40 * 86_400)
        let deadlines = Set(try await Self.deletion(fixture, eventTime: eventTime, jobs: 2))
        let passed = try #require(deadlines.min(), "\(deadlines)")
        let running = try #require(deadlines.max(), "\(deadlines)")
        #expect(passed < now.iso8601 && running > now.iso8601, "\(deadlines)")

        // A notice inside the law's window (ten days after the request), recorded now; the new deadline is within
        // the policy's two further months of the later job's.
        let late = try await fixture.lifecycle(
            Self.requestCommand(fixture, "extend") + [
                "--reason", "many systems to search", "--notice-at", eventTime.adding(seconds: 10 * 86_400).iso8601,
                "--deadline", now.adding(seconds: 70 * 86_400).iso8601,
            ])
        #expect(late.status == 1 && late.errors.contains("deadline_passed"), "\(late)")
        #expect(late.errors.contains(passed), "the message names the deadline that passed: \(late.errors)")
        #expect(late.errorLines.count == 1, "one line: \(late.errors)")

        // The ledger's default period is the last 30 days; this request is older.
        let ledgerPath =
            "/v1/requests?app=shop&from=\(eventTime.adding(seconds: -86_400).iso8601)&to=\(now.adding(seconds: 86_400).iso8601)"
        let ledger = try await fixture.admin("GET", ledgerPath)
        let entry = try #require(ledger.json?["requests"]?.arrayValue?.first, "\(ledger)")
        #expect(entry["extension"] == .null, "nothing was recorded: \(entry)")
        let unchanged = Set(try await Self.scheduledDeadlines(fixture))
        #expect(unchanged == deadlines, "no job's deadline moved: \(unchanged)")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "an extension an older release recorded after the deadline is shown with recordedAfterDeadline, and the request is judged late by the deadline it extended (held: overdue, no timeliness claimed)",
        arguments: [false, true])
    func lateExtensionFromOlderRelease(held: Bool) async throws {
        let fixture = try await Self.fixture(runner: false)
        try await fixture.start()
        let now = fixture.now
        let eventTime = now.adding(seconds: -40 * 86_400)
        let deadlineText = try #require(try await Self.deletion(fixture, eventTime: eventTime).first)
        let deadline = try #require(ISO8601Format.parse(deadlineText))
        #expect(await fixture.stop() == [0])

        // What an older release stored for `request extend` today: the decision and the job's moved deadline.
        let newDeadline = now.adding(seconds: 10 * 86_400)
        let store = try ExternalSQLiteDatabase(
            path: fixture.directory.file("lifecycle.sqlite"), busyTimeoutMilliseconds: 1000)
        _ = try store.executeInTransaction(
            [
                """
                INSERT INTO request_decisions (app, sub, trigger, event_time_ms, kind, reason, notice_at_ms,
                    previous_deadline_ms, new_deadline_ms, recorded_at_ms)
                VALUES ('shop', :sub, 'account-deleted', :event, 'extension', 'many systems to search', :notice,
                    :previous, :new, :now)
                """,
                "UPDATE erasure_jobs SET deadline_ms = :new WHERE sub = :sub",
            ]
                + (held
                    ? [
                        """
                        INSERT INTO request_decisions (app, sub, trigger, event_time_ms, kind, reason, recorded_at_ms)
                        VALUES ('shop', :sub, 'account-deleted', :event, 'hold', 'litigation', :now)
                        """
                    ] : []),
            parameters: [
                "sub": Self.subject, "event": String(eventTime.millisecondsSinceEpoch),
                "notice": String(eventTime.adding(seconds: 10 * 86_400).millisecondsSinceEpoch),
                "previous": String(deadline.millisecondsSinceEpoch), "new": String(newDeadline.millisecondsSinceEpoch),
                "now": String(now.millisecondsSinceEpoch),
            ])
        store.close()

        // The runner erases it now, after the deadline the extension was recorded past and before the new one;
        // unless the request is held.
        try fixture.updateConfiguration { root in root["erasure"] = ServeProcessTests.quickWork["erasure"] }
        try await fixture.start()
        if !held {
            let completed = await eventually(timeout: .seconds(20)) {
                (try? await fixture.admin("GET", "/v1/jobs?status=completed"))?.json?["jobs"]?.arrayValue?.count == 1
            }
            #expect(completed, "\(fixture.log.suffix(2000))")
        }
        let generated = try await fixture.lifecycle([
            "report", "generate", "--config", fixture.configurationFile, "--from",
            eventTime.adding(seconds: -86_400).iso8601, "--to", now.adding(seconds: 86_400).iso8601,
        ])
        #expect(generated.status == 0, "\(generated)")
        let row = try #require(try Self.reportJSON(fixture)["subjects"]?.arrayValue?.first)
        #expect(row["extension"]?["recordedAfterDeadline"] == true, "\(row)")
        #expect(row["deadline"] == .string(newDeadline.iso8601), "the stored deadline moved: \(row)")
        if held {
            #expect(row["onTime"] == .null, "a held request claims no timeliness: \(row)")
            #expect(row["outcome"] == "overdue", "open past the deadline it is judged by: \(row)")
        } else {
            #expect(row["onTime"] == false, "judged by the deadline it extended: \(row)")
            #expect(row["outcome"] == "completed", "\(row)")
        }
        let html = try Self.reportFile(fixture, suffix: "-deletion-compliance.html")
        #expect(html.contains("had passed: judged by it"), "the page says so")
        let csv = try Self.reportFile(fixture, suffix: "-deletion-compliance.csv")
        #expect(csv.contains("after that deadline had passed"), "\(csv)")
        #expect(await fixture.stop() == [0])
    }

    static func requestCommand(_ fixture: ServeFixture, _ action: String) -> [String] {
        [
            "request", action, "--app", "shop", "--sub", subject, "--url", fixture.adminURL, "--token-file",
            fixture.directory.file("secrets/admin-token"),
        ]
    }

    @Test(
        "a legal hold stops an erasure that is due, across a restart, and the release lets it complete; the ledger shows the hold and claims no on-time answer"
    )
    func holdStopsErasure() async throws {
        let fixture = try await Self.fixture()
        try await fixture.start()
        try await Self.deletion(fixture)
        let held = try await fixture.lifecycle(
            Self.requestCommand(fixture, "hold") + ["--grounds", "litigation hold LH-2026-4"])
        #expect(held.status == 0 && held.output.contains("hold recorded"), "\(held)")
        let twice = try await fixture.admin("POST", Self.path + "hold", body: Self.body(["grounds": "again"]))
        #expect(twice.status == 409 && twice.json?["error"] == "already_held", "\(twice)")
        #expect(await fixture.stop() == [0])

        // Two days later the erasure is due: the runner must not run it.
        try await fixture.start(environment: ["LIFECYCLE_CLOCK_OFFSET_SECONDS": String(2 * 86_400)])
        try await Task.sleep(for: .seconds(3))
        let jobs = try await fixture.admin("GET", "/v1/jobs")
        let job = try #require(jobs.json?["jobs"]?.arrayValue?.first, "\(jobs)")
        #expect(job["status"] == "scheduled", "held: \(job)")
        #expect(job["steps"]?.arrayValue?.allSatisfy { $0["attempts"] == 0 } == true, "no attempt: \(job)")
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 1, "the app's row is still there")
        let ledger = try await fixture.admin("GET", "/v1/requests?app=shop")
        let entry = try #require(ledger.json?["requests"]?.arrayValue?.first, "\(ledger)")
        #expect(entry["holds"]?.arrayValue?.first?["grounds"] == "litigation hold LH-2026-4", "\(entry)")
        #expect(entry["holds"]?.arrayValue?.first?["releasedAt"] == .null)
        #expect(entry["response"] == "open")

        let released = try await fixture.admin(
            "POST", Self.path + "release", body: Self.body(["reason": "the court lifted the hold"]))
        #expect(released.status == 200 && released.json?["releasedAt"]?.stringValue != nil, "\(released)")
        let completed = await eventually(timeout: .seconds(20)) {
            (try? await fixture.admin("GET", "/v1/jobs?status=completed"))?.json?["jobs"]?.arrayValue?.count == 1
        }
        #expect(completed, "released, the erasure ran")
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 0)
        let notHeld = try await fixture.admin("POST", Self.path + "release", body: Self.body(["reason": "again"]))
        #expect(notHeld.status == 409 && notHeld.json?["error"] == "not_held", "\(notHeld)")

        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let row = try #require(try Self.reportJSON(fixture)["subjects"]?.arrayValue?.first)
        #expect(row["outcome"] == "completed", "\(row)")
        #expect(row["onTime"] == .null, "a held request claims no on-time answer: \(row)")
        #expect(row["holds"]?.arrayValue?.first?["releaseReason"] == "the court lifted the hold", "\(row)")
        let html = try Self.reportFile(fixture, suffix: "-deletion-compliance.html")
        #expect(html.contains("not claimed: held") && html.contains("litigation hold LH-2026-4"))
        #expect(html.contains("legal hold</dt>") || html.contains(">legal hold<"), "the glossary defines it")
        #expect(await fixture.stop() == [0])
        #expect(!fixture.log.contains(Self.subject), "no sub in the service's log")
        #expect(!fixture.log.contains("LH-2026-4"), "the grounds are not logged")
    }

    @Test(
        "a refusal cancels the erasure with its basis, shows as denied in the ledger and counts in the yearly totals"
    )
    func refusalDenies() async throws {
        let fixture = try await Self.fixture()
        try await fixture.start()
        try await Self.deletion(fixture)
        let basis = "Cal. Civ. Code §1798.105(d)(2): security incident investigation"
        let refused = try await fixture.lifecycle(Self.requestCommand(fixture, "refuse") + ["--basis", basis])
        #expect(refused.status == 0, "\(refused)")
        let cancelled = try await fixture.admin("GET", "/v1/jobs?status=cancelled")
        #expect(cancelled.json?["jobs"]?.arrayValue?.count == 1, "\(cancelled)")
        let closed = try await fixture.admin("POST", Self.path + "refusal", body: Self.body(["basis": .string(basis)]))
        #expect(closed.status == 409 && closed.json?["error"] == "request_closed", "\(closed)")

        let ledger = try await fixture.admin("GET", "/v1/requests?app=shop")
        let entry = try #require(ledger.json?["requests"]?.arrayValue?.first, "\(ledger)")
        #expect(entry["denial"]?["basis"] == .string(basis), "\(entry)")
        #expect(entry["response"] == "denied" && entry["respondedAt"] == entry["denial"]?["deniedAt"], "\(entry)")
        #expect(ledger.json?["totals"]?["denied"] == 1 && ledger.json?["totals"]?["open"] == 0, "\(ledger)")

        let year = String(fixture.now.iso8601.prefix(4))
        let yearly = try await fixture.lifecycle([
            "report", "requests", "--app", "shop", "--year", year, "--config", fixture.configurationFile,
        ])
        #expect(yearly.status == 0 && yearly.output.contains("0 in part, 1 denied"), "\(yearly)")
        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let row = try #require(try Self.reportJSON(fixture)["subjects"]?.arrayValue?.first)
        #expect(row["denial"] == entry["denial"] && row["response"] == "denied", "\(row)")
        let csv = try Self.reportFile(fixture, suffix: "-deletion-compliance.csv")
        #expect(csv.contains("denied at "), "\(csv)")
        #expect(await fixture.stop() == [0])
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 1, "nothing was erased")
    }
}
