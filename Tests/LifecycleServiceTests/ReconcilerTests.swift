import Foundation
import LifecycleCore
import LifecycleSQL
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleEngine
@testable import LifecycleReconcile

/// The reconciler against a real store and real exports: each kind of discrepancy seeded once, and exactly
/// the expected findings, for every kind of record source.
@Suite("Nightly reconciler")
struct ReconcilerTests {
    enum SourceKind: String, CaseIterable, CustomStringConvertible {
        case sqlite, jsonl, csv
        var description: String { rawValue }
    }

    /// One app record: sub, status, sessions.
    typealias Row = (sub: String, status: String?, sessions: Int?)

    static let asOf = Instant(secondsSinceEpoch: 1_800_000_000)  // 2027-01-15
    static func daysBefore(_ days: Int64) -> Instant { asOf.adding(seconds: -days * 86_400) }

    /// A scenario: a harness whose app erases everything to `self` under the shipped default policy (GDPR,
    /// one month), its store opened without background work, and the app's records in the chosen format.
    struct Scenario {
        let harness: ServiceHarness
        let context: ServiceContext

        /// `storageURL`: the store's database (``HarnessStore``); nil is the harness's SQLite file.
        /// `records`: the app's record source as configured, instead of `rows` written as `source`.
        init(
            rows: [Row], source: SourceKind, storageURL: String? = nil, records configuredRecords: JSONObject? = nil,
            store: HarnessStore = .sqlite
        ) async throws {
            harness = try ServiceHarness(storageURL: storageURL, store: store)
            let records = try configuredRecords ?? Self.writeRecords(rows, as: source, in: harness.directory)
            var categories = JSONObject()
            for category in DataCategory.allCases { categories[category.rawValue] = ["self"] }
            var config = try #require(
                JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: harness.configurationFile)))?
                    .objectValue)
            config["policiesDirectory"] = .string(ErasureScenario.shippedPolicies)
            config["reconcile"] = ["lookbackHours": 6, "gapThresholdSeconds": 300]
            config["apps"] = [
                [
                    "id": .string(ServiceHarness.appID), "clientIds": [.string(ServiceHarness.clientID)],
                    "policy": "default", "categories": .object(categories), "records": .object(records),
                ]
            ]
            try Data(JSONValue.object(config).serialized().utf8).write(
                to: URL(fileURLWithPath: harness.configurationFile))
            context = try await ServiceContext.open(
                configuration: try harness.configuration, clock: ManualClock(ReconcilerTests.asOf), logSink: { _ in }
            )
        }

        /// The app's records as the chosen source kind, written unsorted (exports need not be sorted).
        static func writeRecords(_ rows: [Row], as source: SourceKind, in directory: TemporaryDirectory) throws
            -> JSONObject
        {
            switch source {
            case .sqlite:
                let file = directory.file("app.sqlite")
                let database = try ExternalSQLiteDatabase(path: file, busyTimeoutMilliseconds: 1000, create: true)
                var statements = [
                    "CREATE TABLE users (id INTEGER PRIMARY KEY, apple_sub TEXT, state TEXT, live_sessions INTEGER)"
                ]
                func literal(_ text: String?) -> String { text.map { "'\($0)'" } ?? "NULL" }
                for row in rows.reversed() {
                    statements.append(
                        "INSERT INTO users (apple_sub, state, live_sessions) VALUES (\(literal(row.sub)), "
                            + "\(literal(row.status)), \(row.sessions.map(String.init) ?? "NULL"))")
                }
                _ = try database.executeInTransaction(statements, parameters: [:])
                database.close()
                return [
                    "type": "sqlite", "path": .string(file),
                    "query": "SELECT apple_sub AS sub, state AS status, live_sessions AS sessions FROM users;",
                ]
            case .jsonl:
                let file = directory.file("records.jsonl")
                let lines = rows.reversed().map { row -> String in
                    var object: JSONObject = ["sub": .string(row.sub)]
                    if let status = row.status { object["status"] = .string(status) }
                    if let sessions = row.sessions { object["sessions"] = .integer(Int64(sessions)) }
                    return JSONValue.object(object).serialized()
                }
                try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
                return ["type": "jsonl", "path": .string(file)]
            case .csv:
                let file = directory.file("records.csv")
                let lines =
                    ["sessions,sub,status"]
                    + rows.reversed().map { "\($0.sessions.map(String.init) ?? ""),\($0.sub),\($0.status ?? "")" }
                try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
                return ["type": "csv", "path": .string(file)]
            }
        }

        /// Apple's notification for `subject`, through the live ingest path.
        func notify(_ type: String, _ subject: String, at eventTime: Instant) async throws {
            let outcome = await context.ingestor.ingest(
                archivedLine: harness.body(type: type, subject: subject, eventTime: eventTime), allowExpired: true)
            guard case .accepted = outcome else { throw ScenarioError.notAccepted("\(outcome)") }
        }

        /// Heartbeats every minute over the look-back window, except in `silence`. With several `instances`
        /// they take turns of `turnMinutes` each: every instance alone is silent for longer than the gap
        /// threshold, yet at every minute one of them is up.
        func heartbeats(
            silence: FindingWindow? = nil, instances: [String] = ["test-instance"], turnMinutes: Int64 = 30
        ) async throws {
            let asOf = ReconcilerTests.asOf
            let from = asOf.adding(seconds: -7 * 3600)
            try await context.store.write { writer in
                var at = from
                var minute: Int64 = 0
                while at < asOf {
                    if silence.map({ !(at >= $0.from && at < $0.to) }) ?? true {
                        let turn = Int((minute / turnMinutes) % Int64(instances.count))
                        try writer.recordHeartbeat(instance: instances[turn], at: at)
                    }
                    at = at.adding(seconds: 60)
                    minute += 1
                }
            }
        }

        func reconcile() async throws -> Reconciler.Report {
            try await Reconciler(
                store: context.store, log: context.log, clock: context.clock, active: { context.current },
                owner: "test"
            ).run(asOf: ReconcilerTests.asOf)
        }
    }

    enum ScenarioError: Error { case notAccepted(String) }

    /// Every discrepancy the merge can see from notifications alone, once each.
    static let discrepancyRows: [Row] = [
        ("sub-clean", "active", 1),
        ("sub-retained", "active", 0),
        ("sub-revoked", "active", 2),
        ("sub-tombstone", "deleted", nil),
        ("sub-unknown", "active", 1),
    ]

    func seedDiscrepancies(_ scenario: Scenario) async throws {
        try await scenario.notify("email-enabled", "sub-clean", at: Self.daysBefore(3))
        try await scenario.notify("account-delete", "sub-retained", at: Self.daysBefore(60))
        try await scenario.notify("consent-revoked", "sub-revoked", at: Self.daysBefore(1))
        try await scenario.notify("account-deleted", "sub-tombstone", at: Self.daysBefore(2))
        try await scenario.notify("email-disabled", "sub-orphan", at: Self.daysBefore(5))
        try await scenario.heartbeats()
    }

    @Test(
        "each seeded discrepancy gives exactly its finding, whatever the source format and the store",
        arguments: SourceKind.allCases, HarnessStore.available)
    func discrepancies(source: SourceKind, store: HarnessStore) async throws {
        let scenario = try await Scenario(rows: Self.discrepancyRows, source: source, store: store)
        try await seedDiscrepancies(scenario)
        let report = try await scenario.reconcile()
        let found = Set(report.findings.map { "\($0.code.rawValue) \($0.subject ?? "-")" })
        #expect(
            found == [
                "retained-after-deletion sub-retained", "erasure-overdue sub-retained",
                "session-after-revocation sub-revoked", "unknown-to-service sub-unknown",
                "orphan-notification sub-orphan",
            ])
        #expect(report.findings.first { $0.code == .retainedAfterDeletion }?.severity == .critical)
        #expect(report.findings.first { $0.code == .unknownToService }?.severity == .info)
        #expect(report.apps.first?.recordsRead == Self.discrepancyRows.count)
        #expect(report.apps.first?.registered == 1)
        let registered = try await scenario.context.store.read {
            try $0.account(app: ServiceHarness.appID, subject: "sub-unknown")
        }
        #expect(registered?.state == .linked)
        await scenario.context.close()
    }

    @Test("a clean dataset gives no findings and exit 0")
    func clean() async throws {
        let scenario = try await Scenario(rows: [("sub-a", "active", 1), ("sub-b", nil, nil)], source: .jsonl)
        try await scenario.notify("email-enabled", "sub-a", at: Self.daysBefore(1))
        try await scenario.notify("email-disabled", "sub-b", at: Self.daysBefore(1))
        try await scenario.heartbeats()
        await scenario.context.close()
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: ["reconcile", "--config", scenario.harness.configurationFile, "--as-of", Self.asOf.iso8601],
            io: captured.io)
        #expect(status == 0, "\(captured.output()) \(captured.errors())")
        #expect(captured.output().contains(": 0 findings"))
    }

    @Test("--fail-on critical exits 1 when a critical finding exists, and never prints a raw sub")
    func failOnCritical() async throws {
        let scenario = try await Scenario(rows: Self.discrepancyRows, source: .csv)
        try await seedDiscrepancies(scenario)
        await scenario.context.close()
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: [
                "reconcile", "--config", scenario.harness.configurationFile, "--as-of", Self.asOf.iso8601,
                "--fail-on", "critical", "--json",
            ], io: captured.io)
        #expect(status == 1)
        let output = captured.output()
        #expect(output.contains("retained-after-deletion"))
        #expect(!output.contains("sub-retained"))
    }

    @Test("an unreadable source exits 2 with one clear line")
    func unreadableSource() async throws {
        let scenario = try await Scenario(rows: [], source: .jsonl)
        try FileManager.default.removeItem(atPath: scenario.harness.directory.file("records.jsonl"))
        await scenario.context.close()
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: ["reconcile", "--config", scenario.harness.configurationFile], io: captured.io)
        #expect(status == 2)
        let errors = captured.errors().split(separator: "\n")
        #expect(errors.count == 1)
        #expect(errors.first?.contains("records.jsonl: cannot open for reading") == true)
    }

    @Test("heartbeats that stop for two hours give one gap finding covering that window")
    func notificationGap() async throws {
        let scenario = try await Scenario(rows: [("sub-a", "active", nil)], source: .jsonl)
        try await scenario.notify("email-enabled", "sub-a", at: Self.daysBefore(1))
        let silence = FindingWindow(
            from: Self.asOf.adding(seconds: -4 * 3600), to: Self.asOf.adding(seconds: -2 * 3600))
        try await scenario.heartbeats(silence: silence)
        let report = try await scenario.reconcile()
        let gaps = report.findings.filter { $0.code == .notificationGap }
        #expect(gaps.count == 1)
        let window = try #require(gaps.first?.window)
        // From the last beat before the silence to the first after it.
        #expect(window.from == silence.from.adding(seconds: -60))
        #expect(window.to == silence.to)
        #expect(gaps.first?.detail.contains("1 linked accounts") == true)
        #expect(report.findings.count == 1)
        await scenario.context.close()
    }

    @Test(
        "two instances whose heartbeats take turns leave no gap; only a silence of both is a gap",
        arguments: HarnessStore.available)
    func gapOnlyWhenEveryInstanceIsDown(store kind: HarnessStore) async throws {
        try await kind.run { storageURL in
            let scenario = try await Scenario(rows: [("sub-a", "active", nil)], source: .jsonl, storageURL: storageURL)
            try await scenario.notify("email-enabled", "sub-a", at: Self.daysBefore(1))
            // Each instance alone is silent for 30 minutes at a time, six times the 5-minute threshold, and
            // both are down for one hour: that hour is the one gap, from the last beat of either to the first
            // after it.
            let silence = FindingWindow(
                from: Self.asOf.adding(seconds: -3 * 3600), to: Self.asOf.adding(seconds: -2 * 3600))
            try await scenario.heartbeats(silence: silence, instances: ["host-a:101:1", "host-b:202:1"])
            let gaps = try await scenario.reconcile().findings.filter { $0.code == .notificationGap }
            #expect(gaps.count == 1)
            #expect(gaps.first?.window?.from == silence.from.adding(seconds: -60))
            #expect(gaps.first?.window?.to == silence.to)
            await scenario.context.close()
        }
    }

    @Test("running twice neither duplicates findings nor registers twice; resolved findings are closed")
    func idempotent() async throws {
        let scenario = try await Scenario(rows: Self.discrepancyRows, source: .sqlite)
        try await seedDiscrepancies(scenario)
        _ = try await scenario.reconcile()
        let second = try await scenario.reconcile()
        #expect(second.apps.first?.registered == 0)
        let (open, all, history) = try await scenario.context.store.read { reader in
            (
                try reader.findings(app: nil, includeResolved: false, limit: 100, afterID: nil),
                try reader.findings(app: nil, includeResolved: true, limit: 100, afterID: nil),
                try reader.history(app: ServiceHarness.appID, subject: "sub-unknown")
            )
        }
        #expect(all.count == 5)
        #expect(open.count == 4)
        #expect(all.first { $0.finding.code == .unknownToService }?.resolvedAt != nil)
        #expect(history.count == 1)
        await scenario.context.close()
    }

    @Test("a run that died holding the lock does not block the next one once its lease ends")
    func crashedRunLeavesNoLock() async throws {
        let scenario = try await Scenario(rows: [], source: .jsonl)
        try await scenario.heartbeats()
        // A run that started an hour ago with a 5-minute lease and never finished (its process was killed).
        let crashed = Self.asOf.adding(seconds: -3600)
        let claim = try await scenario.context.store.write { writer in
            try writer.beginReconcileRun(
                app: nil, owner: "killed", at: crashed, leaseUntil: crashed.adding(seconds: 300))
        }
        guard case .started = claim else {
            Issue.record("could not seed the crashed run")
            return
        }
        _ = try await scenario.reconcile()
        let runs = try await scenario.context.store.read { try $0.reconcileRuns(limit: 10) }
        #expect(runs.map(\.status) == [.completed, .abandoned])
        await scenario.context.close()
    }

    @Test("a live run holds the lock: a second run is refused")
    func concurrentRunRefused() async throws {
        let scenario = try await Scenario(rows: [], source: .jsonl)
        _ = try await scenario.context.store.write { writer in
            try writer.beginReconcileRun(
                app: nil, owner: "other", at: Self.asOf, leaseUntil: Self.asOf.adding(seconds: 300))
        }
        await #expect(throws: Reconciler.Failure.self) { try await scenario.reconcile() }
        await scenario.context.close()
    }
}
