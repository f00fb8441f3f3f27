import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleServer

/// The request ledger through the real `lifecycle serve` and `lifecycle report requests`: a deletion from
/// Apple, erased by the running service (its `self` step included), stays in `GET /v1/requests` with its
/// source, times, policy, deadline, explicit `extension`/`denial` nulls and its answer; the yearly totals count
/// it; the pseudonym is the one `jobs list` prints; and 729 days later, after the retention purge, it is still
/// there (CCPA regulations §7101(b): 24 months).
@Suite("Request ledger through lifecycle serve")
struct RequestLedgerServeTests {
    static let subject = "000123.ledger0000ledger0000ledger0000.0123"
    static let other = "000456.ledger1111ledger1111ledger1111.0456"

    @Test(
        "GET /v1/requests and report requests list the erased deletion with its source, times, policy and answer, and keep it past the retention purge"
    )
    func ledger() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: ServeProcessTests.quickWork)
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject, Self.other])
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.subject)).status == 200)
        #expect(
            try await fixture.post(fixture.notification(type: "account-suspended", subject: Self.other)).status == 200,
            "an unknown type is stored and answered 200")
        let erased = await eventually(timeout: .seconds(20)) {
            (try? await fixture.admin("GET", "/v1/jobs?status=completed"))?.json?["jobs"]?.arrayValue?.count == 1
        }
        #expect(erased, "the erasure (app-db and self) completed")
        let day = ReportDays.date(fixture.now.millisecondsSinceEpoch / ReportDays.millisecondsPerDay)
        let next = ReportDays.date(fixture.now.millisecondsSinceEpoch / ReportDays.millisecondsPerDay + 1)
        let query = "/v1/requests?app=shop&from=\(day)&to=\(next)"

        let listed = try await fixture.admin("GET", query)
        #expect(listed.status == 200, "\(listed)")
        let requests = try #require(listed.json?["requests"]?.arrayValue, "\(listed)")
        #expect(requests.count == 1, "the unknown type is not a request")
        let entry = try #require(requests.first)
        #expect(entry["eventType"] == "account-deleted" && entry["source"] == "notification")
        #expect(entry["acknowledgedAt"] == entry["receivedAt"] && entry["receivedAt"]?.stringValue != nil)
        #expect(entry["policy"]?.stringValue?.hasPrefix("immediate@1#") == true, "\(entry)")
        #expect(entry["deadline"]?.stringValue != nil)
        #expect(entry["extension"] == .null && entry["denial"] == .null)
        #expect(entry["response"] == "complied" && entry["outcome"] == "completed", "\(entry)")
        #expect(entry["respondedAt"]?.stringValue != nil && entry["cancellation"] == .null)
        let totals = try #require(listed.json?["totals"])
        #expect(totals["received"] == 1 && totals["compliedInWhole"] == 1 && totals["denied"] == 0, "\(totals)")
        #expect(totals["respondedSample"] == 1)
        for (target, status, code) in [
            ("/v1/requests", 400, "invalid_query"), ("/v1/requests?app=nope", 404, "unknown_app"),
            ("/v1/requests?app=shop&from=\(day)", 400, "invalid_period"),
            ("/v1/requests?app=shop&from=yesterday&to=\(next)", 400, "invalid_period"),
            ("/v1/requests?app=shop&from=\(next)&to=\(day)", 400, "invalid_period"),
            ("/v1/requests?app=shop&limit=5", 400, "unknown_parameter"),
        ] {
            let refused = try await fixture.admin("GET", target)
            #expect(refused.status == status && refused.json?["error"] == .string(code), "\(target): \(refused)")
        }

        // The same person has the same pseudonym in the ledger, the report and `jobs list`.
        let jobs = try await fixture.lifecycle(["jobs", "list", "--json", "--config", fixture.configurationFile])
        #expect(jobs.status == 0, "\(jobs)")
        let account = JSONValue.parseIfValid(Array(jobs.output.utf8))?["jobs"]?.arrayValue?.first?["account"]
        #expect(account != nil && account == entry["subject"], "\(jobs.output)")
        let generated = try await fixture.lifecycle([
            "report", "generate", "--json", "--config", fixture.configurationFile,
        ])
        #expect(generated.status == 0, "\(generated)")
        let file = try #require(fixture.reportFiles().first { $0.hasSuffix("-deletion-compliance.json") })
        let report = try JSONValue.parse(
            Array(try #require(FileManager.default.contents(atPath: fixture.directory.file("reports/" + file)))))
        #expect(report["subjects"]?.arrayValue?.first?["subject"] == entry["subject"])
        #expect(report["operationsPseudonymKeyId"] == report["pseudonymKeyId"])
        let total = report["summary"]?["total"]
        #expect(
            total?["medianDaysToComplete"] == .null && total?["p95DaysToComplete"] == .null, "one value is no median")
        #expect(total?["daysToCompleteSample"] == .integer(1) && total?["longestDaysToComplete"] != .null)
        #expect(report["inputs"]?["unknownTypes"]?["account-suspended"] == .integer(1), "\(report["inputs"] ?? .null)")
        let coveredUntil = try #require(report["period"]?["coveredUntil"]?.stringValue)
        #expect(coveredUntil <= (report["generatedAt"]?.stringValue ?? ""), "the period is shown up to generation")
        let page = try #require(fixture.reportFiles().first { $0.hasSuffix("-deletion-compliance.html") })
        let html = try String(contentsOfFile: fixture.directory.file("reports/" + page), encoding: .utf8)
        #expect(html.contains("<h2>Glossary</h2>") && html.contains("the same pseudonym there"))

        let year = String(day.prefix(4))
        let yearly = try await fixture.lifecycle([
            "report", "requests", "--app", "shop", "--year", year, "--config", fixture.configurationFile,
        ])
        #expect(yearly.status == 0, "\(yearly)")
        #expect(
            yearly.output.contains("1 requests received, 1 complied with in whole, 0 in part, 0 denied"), "\(yearly)")
        #expect(yearly.output.contains("(n = 1)"), "\(yearly)")
        let yearlyJSON = try await fixture.lifecycle([
            "report", "requests", "--app", "shop", "--from", day, "--to", next, "--json", "--config",
            fixture.configurationFile,
        ])
        #expect(yearlyJSON.status == 0, "\(yearlyJSON)")
        let printed = JSONValue.parseIfValid(Array(yearlyJSON.output.utf8))
        #expect(printed?["requests"] == listed.json?["requests"], "the command prints the API's ledger")
        for (arguments, status, message) in [
            (["--year", "20x6"], Int32(2), "--year 20x6 is not a year"),
            (["--year", year, "--from", day, "--to", next], 2, "give --year or --from/--to"),
            (["--app", "nope"], 1, "unknown app 'nope'"),
        ] {
            var command = ["report", "requests"] + arguments + ["--config", fixture.configurationFile]
            if !arguments.contains("--app") { command += ["--app", "shop"] }
            let refused = try await fixture.lifecycle(command)
            #expect(refused.status == status && refused.errors.contains(message), "\(command): \(refused)")
            #expect(refused.errorLines.count == 1, "one line: \(refused.errors)")
        }
        #expect(await fixture.stop() == [0])

        // 729 days on, after the purge at start, the request is still in the ledger (history: 730 days).
        try await fixture.start(environment: ["LIFECYCLE_CLOCK_OFFSET_SECONDS": String(729 * 86_400)])
        #expect(
            await eventually(timeout: .seconds(20)) { fixture.logEvents("retention.purged").count == 2 },
            "the purge ran at the second start")
        let later = try await fixture.admin("GET", query)
        #expect(later.status == 200)
        #expect(later.json?["requests"]?.arrayValue == requests, "the ledger entry survives erasure and purge")
        #expect(await fixture.stop() == [0])
    }

    @Test("an in-app deletion through the admin API is a request of source in-app, acknowledged when recorded")
    func inAppDeletion() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: ServeProcessTests.quickWork)
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject])
        // The shipped default's rule: an in-app deletion is erased as an Apple deletion is.
        try fixture.writePolicy(
            ServeFixture.immediatePolicy().replacingOccurrences(
                of: #"["account-deleted"]"#, with: #"["account-deleted", "in-app-deletion"]"#))
        try await fixture.start()
        // Known to the service first (a consent revocation), then deleted inside the app.
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: Self.subject)).status == 200)
        // The query's day from before the request, so a midnight between them cannot move the window past it.
        let day = ReportDays.date(fixture.now.millisecondsSinceEpoch / ReportDays.millisecondsPerDay)
        let next = ReportDays.date(fixture.now.millisecondsSinceEpoch / ReportDays.millisecondsPerDay + 2)
        let deleted = try await fixture.admin("POST", "/v1/apps/shop/accounts/\(Self.subject)/deletion")
        #expect(deleted.status == 200, "\(deleted)")
        #expect(deleted.json?["state"] == "deleted", "\(deleted)")

        @Sendable func inApp() async throws -> [JSONValue] {
            let listed = try await fixture.admin("GET", "/v1/requests?app=shop&from=\(day)&to=\(next)")
            return (listed.json?["requests"]?.arrayValue ?? []).filter { $0["source"] == "in-app" }
        }
        // The request is listed once recorded; its erasure plan (policy, deadline) follows through the outbox.
        #expect(try await inApp().count == 1)
        let planned = await eventually(timeout: .seconds(20)) {
            (try? await inApp())?.first?["policy"]?.stringValue != nil
        }
        #expect(planned, "the in-app request never got its policy")
        let entry = try #require(try await inApp().first)
        #expect(entry["eventType"] == "in-app-deletion", "\(entry)")
        #expect(entry["receivedAt"]?.stringValue != nil && entry["acknowledgedAt"] == entry["receivedAt"], "\(entry)")
        #expect(entry["policy"]?.stringValue?.hasPrefix("immediate@1#") == true, "\(entry)")
        #expect(entry["deadline"]?.stringValue != nil, "\(entry)")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "a revocation whose token-like erasure ran and whose waiting job a sign-in cancelled reads cancelled, with the steps and reason, in the ledger and the report"
    )
    func relinkCancels() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: ServeProcessTests.quickWork)
        try fixture.writePolicy(
            """
            {
              "id": "immediate", "version": 1, "jurisdiction": "EU", "timezone": "UTC",
              "rules": [
                {"on": ["account-deleted"], "erase": ["profile", "content"], "within": "P1M", "basis": "test"},
                {"on": ["consent-revoked"], "erase": ["content"], "within": "P1M", "basis": "at once"},
                {"on": ["consent-revoked"], "erase": ["profile"], "after": "P30D", "within": "P2M",
                 "cancelIfRelinked": true, "basis": "after a window in which the user may come back"}
              ]
            }
            """)
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject])
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: Self.subject)).status == 200)
        let ran = await eventually(timeout: .seconds(20)) {
            (try? await fixture.admin("GET", "/v1/jobs?status=completed"))?.json?["jobs"]?.arrayValue?.count == 1
        }
        #expect(ran, "the immediate rule's job completed")
        let relinked = try await fixture.admin("PUT", "/v1/apps/shop/accounts/\(Self.subject)/link")
        #expect(relinked.status == 200, "\(relinked)")

        let ledger = try await fixture.admin("GET", "/v1/requests?app=shop")
        let entry = try #require(ledger.json?["requests"]?.arrayValue?.first, "\(ledger)")
        #expect(entry["outcome"] == "cancelled" && entry["response"] == "withdrawn", "\(entry)")
        #expect(entry["cancellation"]?["reason"]?.stringValue?.hasPrefix("relinked (linked at ") == true, "\(entry)")
        #expect(entry["cancellation"]?["steps"] == ["app-db rules[2]", "self rules[2]"], "\(entry)")
        #expect(entry["respondedAt"] == entry["cancellation"]?["cancelledAt"])
        #expect(ledger.json?["totals"]?["withdrawn"] == 1 && ledger.json?["totals"]?["compliedInWhole"] == 0)

        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let file = try #require(fixture.reportFiles().first { $0.hasSuffix("-deletion-compliance.json") })
        let report = try JSONValue.parse(
            Array(try #require(FileManager.default.contents(atPath: fixture.directory.file("reports/" + file)))))
        #expect(report["summary"]?["total"]?["cancelled"] == .integer(1))
        #expect(report["summary"]?["total"]?["completed"] == .integer(0), "not a completed deletion")
        let row = report["subjects"]?.arrayValue?.first
        #expect(row?["cancellation"] == entry["cancellation"], "\(row ?? .null)")
        let page = try #require(fixture.reportFiles().first { $0.hasSuffix("-deletion-compliance.html") })
        let html = try String(contentsOfFile: fixture.directory.file("reports/" + page), encoding: .utf8)
        #expect(html.contains("relinked (linked at "))
        #expect(await fixture.stop() == [0])
    }

    /// A job a re-link cancels half-way: its app database step had erased, its webhook step waited for the
    /// backend. The report keeps the erased step `done` with its evidence and lists only the others as withdrawn.
    @Test(
        "a re-link that cancels a job half-way: the step that erased reads done with its evidence, only the rest cancelled"
    )
    func relinkCancelsHalfWay() async throws {
        let receiver = try WebhookReceiver(status: .accepted)
        var targets = ServeFixture.sqliteTarget("app.sqlite")
        targets["backend"] = ["type": "webhook"]
        let fixture = try await ServeFixture(
            apps: [
                ServeFixture.app(
                    webhook: receiver.url, erasureTargets: targets,
                    categories: ["profile": ["app-db", "backend", "self"], "content": ["self"]])
            ],
            extra: ServeProcessTests.quickWork)
        try fixture.writeSecret(ServeProcessTests.webhookSecret, to: "secrets/shop-webhook")
        try fixture.writePolicy(
            """
            {
              "id": "immediate", "version": 1, "jurisdiction": "EU", "timezone": "UTC",
              "rules": [
                {"on": ["account-deleted"], "erase": ["profile", "content"], "within": "P1M", "basis": "test"},
                {"on": ["consent-revoked"], "erase": ["profile", "content"], "within": "P1M",
                 "cancelIfRelinked": true, "basis": "until the user comes back"}
              ]
            }
            """)
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject])
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: Self.subject)).status == 200)
        let waiting = await eventually(timeout: .seconds(20)) {
            let jobs = try? await fixture.admin("GET", "/v1/jobs?status=running")
            let steps = jobs?.json?["jobs"]?.arrayValue?.first?["steps"]?.arrayValue ?? []
            return steps.contains { $0["target"] == "app-db" && $0["status"] == "done" }
                && steps.contains { $0["target"] == "backend" && $0["status"] == "waiting-callback" }
        }
        #expect(waiting, "\(fixture.log.suffix(2000))")
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 0, "the app database step erased")
        let relinked = try await fixture.admin("PUT", "/v1/apps/shop/accounts/\(Self.subject)/link")
        #expect(relinked.status == 200, "\(relinked)")

        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let file = try #require(fixture.reportFiles().first { $0.hasSuffix("-deletion-compliance.json") })
        let report = try JSONValue.parse(
            Array(try #require(FileManager.default.contents(atPath: fixture.directory.file("reports/" + file)))))
        let row = try #require(report["subjects"]?.arrayValue?.first)
        #expect(row["outcome"] == "cancelled", "\(row)")
        #expect(row["cancellation"]?["steps"] == ["backend rules[1]", "self rules[1]"], "\(row)")
        let statuses = (row["targets"]?.arrayValue ?? []).map {
            "\($0["target"]?.stringValue ?? "") \($0["status"]?.stringValue ?? "")"
        }
        #expect(statuses == ["app-db done", "backend cancelled", "self cancelled"], "\(row)")
        let appDB = row["targets"]?.arrayValue?.first { $0["target"] == "app-db" }
        #expect(appDB?["evidence"]?["verificationCount"] == .integer(0), "\(row)")
        // What it erased has backups too: their bound is stated from the erasure the step did.
        let backups = row["remainingCopies"]?["backups"]?.arrayValue ?? []
        #expect(backups.map { $0["store"] } == ["app-db"], "\(row)")
        #expect(backups.first?["erasedAt"] == appDB?["finishedAt"], "\(row)")
        #expect(await fixture.stop() == [0])
        await receiver.stop()
    }
}
