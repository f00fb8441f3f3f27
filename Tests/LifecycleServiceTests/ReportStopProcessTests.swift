import Foundation
import Glibc
import LifecycleCore
import LifecycleEngine
import LifecycleStore
import Testing

@testable import LifecycleDevTools

/// README (Nightly reconcile): "a report stopped before its manifest line leaves no file (`report.stopped`), one
/// past it is finished; what is left is the next start's catch-up". Driven through the real `serve`: a store
/// holding a month of deletion requests (the `bench report` population) makes the scheduled report long enough
/// for a SIGTERM to land inside it.
@Suite("SIGTERM during serve's daily report")
struct ReportStopProcessTests {
    /// Deletion requests in the store: seconds of report in a debug build.
    static let requests = 20_000
    /// The day the schedule runs for: 03:15 in Seoul on 2026-12-01 is 2026-11-30 18:15 UTC. Its report covers
    /// the 30 days before, the population's month (November 2026).
    static let occurrence = Instant(millisecondsSinceEpoch: 1_796_062_500_000)
    static let day = "2026-12-01"
    static let dayBefore = "2026-11-30"

    /// The `bench` app as `bench report` configures it: the shipped default policy, every category in the app's
    /// database and the service's own copies.
    static func app() -> JSONValue {
        var categories = JSONObject()
        for category in DataCategory.allCases {
            categories[category.canonicalName] =
                category == .appleTokens ? ["self"] : [.string(ReportBenchmark.appTarget), "self"]
        }
        return [
            "id": .string(ReportBenchmark.appID), "clientIds": ["com.example.bench"],
            "policy": .string(ReportBenchmark.policyID), "targets": .object(ServeFixture.sqliteTarget("app.sqlite")),
            "categories": .object(categories),
        ]
    }

    @Test(
        "a SIGTERM inside the scheduled report stops serve within seconds, logs report.stopped and leaves no report; the next start's catch-up writes one that verifies"
    )
    func stopInsideReport() async throws {
        let offset = (Self.occurrence.millisecondsSinceEpoch - SystemClock().now().millisecondsSinceEpoch) / 1000 + 120
        let fixture = try await ServeFixture(
            apps: [Self.app()],
            extra: [
                "reconcile": ["dailyAt": "03:15", "timeZone": "Asia/Seoul"], "erasure": ["runInServe": false],
            ],
            clockOffsetSeconds: offset)
        try FileManager.default.copyItem(
            atPath: ErasureScenario.shippedPolicies + "/default.json",
            toPath: fixture.directory.file("policies/default.json"))
        try fixture.createAppDatabase("app.sqlite", subjects: [])
        // The store migrated, then the month written into it as `bench report` does, and the day before the
        // occurrence recorded as reported: the start finds the occurrence missed and runs it at once.
        await (try SQLiteStore.open(path: fixture.directory.file("lifecycle.sqlite"))).close()
        let configuration = try ServiceConfiguration.load(file: fixture.configurationFile, environment: [:])
        let population = ReportBenchmarkPopulation(count: Self.requests, seed: 7, period: ReportBenchmark.period)
        _ = try ReportBenchmarkStore(
            population: population, configuration: configuration, masterKeyID: nil, batch: 5_000
        )
        .write(path: fixture.directory.file("lifecycle.sqlite"))
        try await ScheduleCatchUpTests.recordWritten(day: Self.dayBefore, apps: [ReportBenchmark.appID], in: fixture)

        let process = try await fixture.start()
        // Once the report is being written (report.started), not merely after the reconcile, so the stop lands
        // inside it.
        let reporting = await eventually(timeout: .seconds(60)) { !fixture.logEvents("report.started").isEmpty }
        try #require(reporting, "the missed day's report never started: \(fixture.log.suffix(2000))")
        let (status, took) = await process.terminate()
        #expect(status == 0)
        #expect(took < .seconds(10), "the stop waited \(took) for the report")
        try #require(
            fixture.logEvents("report.generated").isEmpty,
            "the report finished before the stop came; a larger store is needed: \(fixture.log.suffix(1500))")
        let stopped = fixture.logEvents("report.stopped")
        #expect(stopped.count == 1 && stopped.first?["day"]?.stringValue == Self.day, "\(fixture.log.suffix(1500))")
        #expect(fixture.reportFiles().isEmpty, "a stopped report left \(fixture.reportFiles())")
        let store = try await SQLiteStore.open(path: fixture.directory.file("lifecycle.sqlite"))
        let recorded = try await store.read { try $0.lastDailyReportDay(app: ReportBenchmark.appID) }
        await store.close()
        #expect(recorded == Self.dayBefore, "the stopped day is not recorded as reported")

        // The next start catches the day up: the report is written, recorded, and verifies.
        try await fixture.start()
        let catchUp = ContinuousClock.now
        let written = await eventually(timeout: .seconds(120)) { !fixture.logEvents("report.generated").isEmpty }
        #expect(written, "\(fixture.log.suffix(1500))")
        print(
            "report of \(Self.requests) requests: stopped \(took) after the SIGTERM; written in \(ContinuousClock.now - catchUp) at the next start"
        )
        #expect(fixture.logEvents("report.generated").first?["day"]?.stringValue == Self.day)
        #expect(await fixture.stop() == [0])
        let verified = try await fixture.lifecycle(["report", "verify", "--config", fixture.configurationFile])
        #expect(verified.status == 0, "\(verified)")
    }
}
