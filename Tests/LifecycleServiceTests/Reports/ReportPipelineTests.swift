import AppleNotifications
import Foundation
import LifecycleCore
import LifecycleDevTools
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleEngine
@testable import LifecycleReports

/// The whole pipeline on a real service: signed notifications over loopback into a real SQLite store, then
/// `lifecycle report generate|verify|lookup` on the same configuration.
@Suite("Deletion-compliance reports from the store")
struct ReportPipelineTests {
    static let subjects = [
        "000501.1f2e3d4c5b6a79881f2e3d4c5b6a7988.0501", "000502.aa55aa55aa55aa55aa55aa55aa55aa55.0502",
        "000503.0c0ffee00c0ffee00c0ffee00c0ffee0.0503", "000504.deadbeefdeadbeefdeadbeefdeadbeef.0504",
    ]
    static let emails = ["qz81mk2vty@privaterelay.appleid.com", "first.last@example.org"]

    static func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(arguments: arguments, io: captured.io)
        return (status, captured.output(), captured.errors())
    }

    /// A signed notification whose event carries an e-mail, as Apple sends for e-mail forwarding changes.
    static func body(_ harness: ServiceHarness, type: String, subject: String, email: String?) -> [UInt8] {
        var extra: JSONObject = [:]
        if let email {
            extra["email"] = .string(email)
            extra["is_private_email"] = .string("true")
        }
        let now = SystemClock().now()
        let event = TestTokenFactory.event(
            type: type, subject: subject, eventTime: .integer(now.millisecondsSinceEpoch), extra: extra)
        let claims = TestTokenFactory.claims(
            event: event, audience: ServiceHarness.clientID, issuedAt: now,
            overrides: ["jti": .string(NotificationSigner.makeJTI())])
        return NotificationBody.encode(jws: harness.tokens.token(claims: claims))
    }

    /// Runs a service, posts notifications of every type (with e-mails) and an in-app deletion, stops it.
    static func populate() async throws -> ServiceHarness {
        let harness = try ServiceHarness()
        _ = try await harness.start()
        let posts: [(String, Int, String?)] = [
            ("email-disabled", 0, emails[0]), ("email-enabled", 0, emails[0]), ("consent-revoked", 1, nil),
            ("account-delete", 2, emails[1]), ("account-deleted", 2, emails[1]),
        ]
        for (type, subject, email) in posts {
            let response = try await harness.post(body(harness, type: type, subject: subjects[subject], email: email))
            #expect(response.status == 200, "\(type)")
        }
        await harness.stop()
        let deleted = await run([
            "account", "delete", "--app", ServiceHarness.appID, "--sub", subjects[3], "--config",
            harness.configurationFile,
        ])
        #expect(deleted.status == 0, "\(deleted.err)")
        return harness
    }

    static func reportFiles(_ root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(root + "/" + path)
            }
        }
        return files.sorted()
    }

    @Test("generate writes html, json and csv with a manifest; no raw sub or e-mail is in any file; verify passes")
    func generateIsPseudonymousAndVerifies() async throws {
        let harness = try await Self.populate()
        let generated = await Self.run(["report", "generate", "--config", harness.configurationFile, "--json"])
        #expect(generated.status == 0, "\(generated.err)")
        let document = try JSONValue.parse(generated.out)
        #expect(document.arrayValue?.first?["received"] == .integer(3))

        let root = harness.directory.file("reports")
        let files = Self.reportFiles(root)
        #expect(files.filter { $0.hasSuffix(".html") || $0.hasSuffix(".json") || $0.hasSuffix(".csv") }.count == 3)
        #expect(files.contains { $0.hasSuffix("/shop/manifest.jsonl") })
        for file in files {
            let bytes = try #require(FileManager.default.contents(atPath: file))
            let text = String(decoding: bytes, as: UTF8.self).lowercased()
            for secret in Self.subjects + Self.emails + Self.subjects.map({ String($0.split(separator: ".")[1]) }) {
                #expect(!text.contains(secret.lowercased()), "\(file) contains a raw identifier")
            }
        }

        let verified = await Self.run(["report", "verify", "--config", harness.configurationFile])
        #expect(verified.status == 0, "\(verified.err)")
        #expect(verified.out.contains("verified 1 reports"))
    }

    @Test("lookup prints the pseudonym the report uses for a subject, without echoing the sub")
    func lookupFindsTheRow() async throws {
        let harness = try await Self.populate()
        #expect(await Self.run(["report", "generate", "--config", harness.configurationFile]).status == 0)
        let lookup = await Self.run([
            "report", "lookup", "--app", ServiceHarness.appID, "--sub", Self.subjects[3], "--config",
            harness.configurationFile,
        ])
        #expect(lookup.status == 0, "\(lookup.err)")
        let pseudonym = lookup.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(pseudonym.hasPrefix("ps_") && !lookup.out.contains(Self.subjects[3]))
        let json = try #require(
            Self.reportFiles(harness.directory.file("reports")).first { $0.hasSuffix(".json") })
        let report = try JSONValue.parse(try #require(FileManager.default.contents(atPath: json)))
        let row = try #require(report["subjects"]?.arrayValue?.first { $0["subject"]?.stringValue == pseudonym })
        #expect(row["eventType"] == "in-app-deletion")
        #expect(row["source"] == "in-app")
    }

    /// Jobs from a source the collector is given, standing in for the erasure job store.
    struct FixedJobs: ErasureJobSource {
        let jobs: [ReportSubjectJob]
        func erasureJobs(app: String, subject: String) async throws -> [ReportSubjectJob] {
            jobs.filter { $0.subject == subject }
        }
    }

    struct FixedFindings: FindingSource {
        let run: ReportFindingRun
        func lastReconcile(app: String) async throws -> ReportFindingRun? { run }
    }

    @Test("the collector joins the store's history with jobs and findings from their sources")
    func collectorUsesSources() async throws {
        let harness = try await Self.populate()
        let context = try await ServiceContext.open(configuration: try harness.configuration, logSink: { _ in })
        let history = try await context.store.read {
            try $0.history(app: ServiceHarness.appID, subject: Self.subjects[3])
        }
        let deletion = try #require(history.first { $0.entry.kind == .inAppDeletion }).entry
        let plan = ErasureJobPlan(
            policyReference: "default@1#00", trigger: .inAppDeletion, eventTime: deletion.eventTime,
            origin: .rule(index: 0), categories: [.profile], targets: ["self"], notBefore: deletion.eventTime,
            deadline: deletion.eventTime.adding(seconds: 86_400), cancelIfRelinked: false, basis: nil)
        let finished = deletion.eventTime.adding(seconds: 60)
        let step = ErasureStep(
            target: "self", status: .done, attempts: 1, nextAttemptAt: nil, lastAttemptAt: finished,
            finishedAt: finished, evidence: ErasureStepEvidence(rowsAffected: 2))
        let job = ReportSubjectJob(
            subject: Self.subjects[3], job: ErasureJob(plan: plan, steps: [step], cancelledAt: nil))
        let findingRun = ReportFindingRun(
            ranAt: finished,
            findings: [
                Finding(code: .orphanNotification, subject: Self.subjects[1], detail: "the app holds no such sub")
            ])
        let collector = ReportCollector(
            store: context.store, jobs: FixedJobs(jobs: [job]), findings: FixedFindings(run: findingRun),
            options: ReportOptions(collectionPageSize: 1))
        let now = finished.adding(seconds: 60)
        let period = ReportPeriod(from: now.adding(seconds: -3600), to: now)
        let inputs = try await collector.collect(app: ServiceHarness.appID, period: period, generatedAt: now)
        await context.close()

        let dataset = ReportFixture.assembler.assemble(inputs)
        #expect(dataset.subjects.count == 3)
        let pseudonym = ReportFixture.pseudonymizer.pseudonym(app: ServiceHarness.appID, subject: Self.subjects[3])
        let row = try #require(dataset.subjects.first { $0.pseudonym == pseudonym })
        #expect(row.outcome == .completed && row.onTime == true && row.verification == .verified)
        #expect(row.policy == "default@1#00")
        #expect(
            dataset.findings.items.first?.pseudonym
                == ReportFixture.pseudonymizer.pseudonym(app: ServiceHarness.appID, subject: Self.subjects[1]))
        // Paging one account at a time still sees every event: two e-mail changes, a revocation, a deletion in
        // both spellings (the second, later one is recorded but not a new request), the in-app deletion.
        #expect(dataset.eventsPerDay.reduce(0) { $0 + $1.total } == 6)

        // What `report generate` and the request ledger run: collected and assembled a page at a time, each
        // page's jobs let go once its requests are assembled and its rows spooled to disk. It must say exactly
        // what the whole does, rows in the same order.
        let reopened = try await ServiceContext.open(configuration: try harness.configuration, logSink: { _ in })
        let spoolDirectory = harness.directory.path + "/spool"
        let paged = try await ReportGenerator.dataset(
            collector: ReportCollector(
                store: reopened.store, jobs: FixedJobs(jobs: [job]), findings: FixedFindings(run: findingRun),
                options: ReportOptions(collectionPageSize: 1)),
            assembler: ReportFixture.assembler, app: ServiceHarness.appID, period: period, at: now,
            // A reports directory that cannot be made (under a file) falls through to the next.
            spoolDirectories: ["/dev/null/reports", spoolDirectory])
        await reopened.close()
        #expect(paged == dataset)
        #expect(paged.subjects.map(\.pseudonym) == dataset.subjects.map(\.pseudonym))
        // The spool is unlinked as soon as it is made: nothing is left in the directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: spoolDirectory).isEmpty)
        #expect(paged.summary.total.received == 3 && paged.summary.total.completed == 1)
    }
}

/// Usage mistakes of `lifecycle report` exit 2 (or 1 for an unknown app) with one line naming the mistake.
@Suite("lifecycle report usage")
struct ReportUsageTests {
    @Test(
        "mistakes are refused with one line on stderr",
        arguments: [
            (["report"], 2, "say generate, verify, requests or lookup"),
            (["report", "requests", "--year", "2026"], 2, "--app"),
            (["report", "requests", "--app", "shop", "--year", "26"], 2, "--year 26 is not a year such as 2026"),
            (["report", "publish"], 2, "unknown action 'publish'"),
            (["report", "generate", "--from", "2026-11-01"], 2, "give both --from and --to"),
            (["report", "generate", "--from", "2026-11-08", "--to", "2026-11-01"], 2, "--from must be before --to"),
            (["report", "generate", "--app", "nope"], 1, "unknown app 'nope'"),
            (["report", "lookup", "--app", "shop"], 2, "--sub SUB is required"),
            (["report", "lookup", "--app", "nope", "--sub", "x"], 1, "unknown app 'nope'"),
            (["report", "lookup", "--app", "shop", "--sub", "x"], 2, "no pseudonym key yet"),
            (["report", "verify", "--app", "shop"], 2, "--app is not an option of 'lifecycle report verify'"),
        ] as [([String], Int32, String)])
    func usage(arguments: [String], status: Int32, message: String) async throws {
        let harness = try ServiceHarness()
        let result = await ReportPipelineTests.run(arguments + ["--config", harness.configurationFile])
        #expect(result.status == status)
        #expect(result.err.contains(message), "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1)
    }
}
