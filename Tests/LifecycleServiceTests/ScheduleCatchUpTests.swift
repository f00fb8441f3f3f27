import Foundation
import Glibc
import LifecycleCore
import LifecycleStore
import Testing

@testable import LifecycleEngine

/// `serve` down at `reconcile.dailyAt` (a deploy, a reboot, a crash): at start it runs the occurrence it missed,
/// the way a systemd timer with `Persistent=true` does, so no day's reports go missing for a restart. Observed
/// from outside: the log, the report files, `report verify`.
@Suite("serve catches up a missed reconcile.dailyAt")
struct ScheduleCatchUpTests {
    /// A clock offset that puts the process `seconds` after the next 03:15 in Seoul, that occurrence's day and
    /// the day before it.
    static func schedulePassed(by seconds: Int64) -> (offset: Int64, day: String, dayBefore: String) {
        let zone = TimeZone(identifier: "Asia/Seoul")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let now = Date()
        let occurrence = calendar.nextDate(
            after: now, matching: DateComponents(hour: 3, minute: 15, second: 0), matchingPolicy: .nextTime)!
        func day(_ date: Date) -> String {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        let offset = Int64(occurrence.timeIntervalSince(now).rounded()) + seconds
        return (offset, day(occurrence), day(occurrence.addingTimeInterval(-86_400)))
    }

    static func fixture(offset: Int64) async throws -> ServeFixture {
        try await ServeFixture(
            apps: [ServeFixture.app(), ServeFixture.app(id: "blog", clientID: "com.example.blog")],
            extra: ["reconcile": ["dailyAt": "03:15", "timeZone": "Asia/Seoul"]],
            clockOffsetSeconds: offset)
    }

    /// Records, as an earlier `serve` would have, that the apps' reports were written for `day`.
    static func recordWritten(day: String, apps: [String], in fixture: ServeFixture) async throws {
        let store = try await SQLiteStore.open(path: fixture.directory.file("lifecycle.sqlite"))
        for app in apps {
            _ = try await store.write {
                try $0.recordDailyReport(
                    DailyReportRecord(
                        day: day, app: app, instance: "earlier:1:1",
                        writtenAt: Instant(millisecondsSinceEpoch: 1_764_000_000_000)))
            }
        }
        await store.close()
    }

    /// Two apps whose reports an earlier `serve` wrote the day before the last 03:15, which `serve` (not yet
    /// started) missed two minutes ago.
    static func missedDay() async throws -> (
        fixture: ServeFixture, schedule: (offset: Int64, day: String, dayBefore: String)
    ) {
        let schedule = schedulePassed(by: 120)
        let fixture = try await Self.fixture(offset: schedule.offset)
        try await recordWritten(day: schedule.dayBefore, apps: ["shop", "blog"], in: fixture)
        return (fixture, schedule)
    }

    @Test(
        "reports were written the day before and serve was down at today's 03:15: at start it reconciles and writes today's reports, once"
    )
    func missedOccurrenceRunsAtStart() async throws {
        let (fixture, schedule) = try await Self.missedDay()
        try await fixture.start()

        let written = await eventually(timeout: .seconds(40)) {
            Set(fixture.logEvents("report.generated").compactMap { $0["app"]?.stringValue }) == ["shop", "blog"]
        }
        #expect(written, "both apps' reports for the missed day: \(fixture.reportFiles())")
        let caughtUp = fixture.logEvents("reconcile.caught_up")
        #expect(caughtUp.count == 1, "one catch-up line: \(caughtUp)")
        #expect(caughtUp.first?["day"]?.stringValue == schedule.day)
        #expect(fixture.logEvents("report.generated").allSatisfy { $0["day"]?.stringValue == schedule.day })
        #expect(!fixture.logEvents("reconcile.finished").isEmpty, "the missed reconcile ran before the reports")
        let verified = try await fixture.lifecycle(["report", "verify", "--config", fixture.configurationFile])
        #expect(verified.status == 0, "\(verified)")
        #expect(await fixture.stop() == [0])

        // A second start the same day finds the day recorded: nothing more runs.
        let files = fixture.reportFiles()
        try await fixture.start()
        let scheduled = await eventually(timeout: .seconds(30)) {
            fixture.logEvents("reconcile.scheduled").count == 2
        }
        #expect(scheduled, "the second serve went on to wait for the next occurrence")
        #expect(fixture.logEvents("reconcile.caught_up").count == 1, "no second catch-up for a recorded day")
        #expect(fixture.reportFiles() == files)
        #expect(await fixture.stop() == [0])
    }

    /// README: "likewise after a SIGHUP that moves `dailyAt` to a time already past, whose day would otherwise
    /// never run".
    @Test("a SIGHUP that moves dailyAt to a time already past today runs that day's reconcile and reports at once")
    func reloadMovesDailyAtIntoThePast() async throws {
        let schedule = Self.schedulePassed(by: 120)
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(), ServeFixture.app(id: "blog", clientID: "com.example.blog")],
            extra: ["reconcile": ["dailyAt": "03:30", "timeZone": "Asia/Seoul"]], clockOffsetSeconds: schedule.offset)
        try await Self.recordWritten(day: schedule.dayBefore, apps: ["shop", "blog"], in: fixture)
        // 03:17 in Seoul: yesterday's 03:30 is recorded, today's is still ahead.
        let process = try await fixture.start()
        let waiting = await eventually(timeout: .seconds(30)) { !fixture.logEvents("reconcile.scheduled").isEmpty }
        #expect(waiting, "\(fixture.log.suffix(1500))")
        #expect(fixture.logEvents("reconcile.caught_up").isEmpty, "nothing was missed before the reload")
        // README, "Logs": a shifted clock is for testing only, and serve says so once at start.
        #expect(fixture.logEvents("clock.offset").first?["seconds"] == .integer(schedule.offset))

        try fixture.updateConfiguration { $0["reconcile"] = ["dailyAt": "03:15", "timeZone": "Asia/Seoul"] }
        try await fixture.reload(process)
        let written = await eventually(timeout: .seconds(40)) {
            Set(fixture.logEvents("report.generated").compactMap { $0["app"]?.stringValue }) == ["shop", "blog"]
        }
        #expect(written, "\(fixture.log.suffix(2000))")
        #expect(fixture.logEvents("reconcile.caught_up").first?["day"]?.stringValue == schedule.day)
        #expect(fixture.logEvents("report.generated").allSatisfy { $0["day"]?.stringValue == schedule.day })
        #expect(await fixture.stop() == [0])
    }

    @Test("a store that never wrote a daily report (a first start after 03:15): serve waits for the next occurrence")
    func firstStartWaits() async throws {
        let schedule = Self.schedulePassed(by: 120)
        let fixture = try await Self.fixture(offset: schedule.offset)
        try await fixture.start()
        // The catch-up is decided before the next occurrence is announced.
        let scheduled = await eventually(timeout: .seconds(30)) { !fixture.logEvents("reconcile.scheduled").isEmpty }
        #expect(scheduled)
        #expect(fixture.logEvents("reconcile.caught_up").isEmpty)
        #expect(fixture.logEvents("report.generated").isEmpty)
        #expect(fixture.reportFiles().isEmpty)
        #expect(await fixture.stop() == [0])
    }

    @Test("an app whose reports for today are recorded is not written again; one recorded only the day before is")
    func onlyTheAppsThatMissedIt() async throws {
        let (fixture, schedule) = try await Self.missedDay()
        try await Self.recordWritten(day: schedule.day, apps: ["shop"], in: fixture)
        try await fixture.start()
        let written = await eventually(timeout: .seconds(40)) { !fixture.logEvents("report.generated").isEmpty }
        #expect(written)
        #expect(fixture.logEvents("report.generated").compactMap { $0["app"]?.stringValue } == ["blog"])
        #expect(fixture.logEvents("reconcile.caught_up").first?["apps"] == .array(["blog"]))
        #expect(fixture.reportFiles().allSatisfy { !$0.hasPrefix("shop/") }, "\(fixture.reportFiles())")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "a caught-up day whose reports fail is tried once, not in a loop: serve logs the failure and waits for the next"
    )
    func failedCatchUpIsNotRetriedAtOnce() async throws {
        let (fixture, _) = try await Self.missedDay()
        // The reports directory is a file: every report write fails.
        try Data("not a directory\n".utf8).write(to: URL(fileURLWithPath: fixture.directory.file("reports")))
        try await fixture.start()
        let scheduled = await eventually(timeout: .seconds(40)) { !fixture.logEvents("reconcile.scheduled").isEmpty }
        #expect(scheduled, "after the failed catch-up serve waits for the next occurrence")
        #expect(!fixture.logEvents("report.failed").isEmpty)
        #expect(fixture.logEvents("reconcile.caught_up").count == 1)
        #expect(fixture.logEvents("reconcile.started").count == 1)
        #expect(await fixture.stop() == [0])
    }

    /// A reconcile run another host began (so serve cannot tell whether its process lives) and has not
    /// finished, its lease ending `leaseSeconds` from now by serve's clock.
    static func holdReconcile(in fixture: ServeFixture, leaseSeconds: Int64) async throws {
        let store = try await SQLiteStore.open(path: fixture.directory.file("lifecycle.sqlite"))
        let now = fixture.now
        _ = try await store.write {
            try $0.beginReconcileRun(
                app: nil, owner: "elsewhere.example:4242:1", at: now, leaseUntil: now.adding(seconds: leaseSeconds))
        }
        await store.close()
    }

    @Test(
        "the reconcile lock is held by an instance on another host that died: serve waits out its lease, then reconciles and writes the day's reports"
    )
    func deadHolderOnAnotherHost() async throws {
        let (fixture, _) = try await Self.missedDay()
        // Its lease ends in 10 s by serve's clock: long enough to outlast serve's start on a loaded machine.
        try await Self.holdReconcile(in: fixture, leaseSeconds: 10)
        try await fixture.start()
        let written = await eventually(timeout: .seconds(60)) {
            Set(fixture.logEvents("report.generated").compactMap { $0["app"]?.stringValue }) == ["shop", "blog"]
        }
        #expect(written, "the day's reports once the dead holder's lease ran out: \(fixture.log.suffix(3000))")
        #expect(fixture.logEvents("reconcile.scheduled_busy").count == 1)
        #expect(fixture.logEvents("reconcile.finished").count == 1, "the reconcile ran after the takeover")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "the reconcile lock's holder writes the day's reports itself: serve, waiting on its lease, sees them recorded and writes nothing"
    )
    func liveHolderWritesTheReports() async throws {
        let (fixture, schedule) = try await Self.missedDay()
        try await Self.holdReconcile(in: fixture, leaseSeconds: 60)
        try await fixture.start()
        #expect(await eventually(timeout: .seconds(20)) { !fixture.logEvents("reconcile.scheduled_busy").isEmpty })
        // The holder, done within its lease, records the day's reports as written.
        try await Self.recordWritten(day: schedule.day, apps: ["shop", "blog"], in: fixture)
        // Seen within seconds, long before the holder's lease would end.
        let skipped = await eventually(timeout: .seconds(20)) { !fixture.logEvents("report.skipped").isEmpty }
        #expect(skipped, "\(fixture.log.suffix(2000))")
        #expect(fixture.logEvents("report.skipped").first?["reason"] == "another instance wrote them")
        #expect(fixture.logEvents("report.generated").isEmpty)
        #expect(fixture.logEvents("reconcile.started").isEmpty, "no second reconcile")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "a report written after the missed occurrence but never recorded (a crash between the two): the catch-up records it, writes no second one"
    )
    func reportWrittenButNotRecorded() async throws {
        let (fixture, schedule) = try await Self.missedDay()
        // What a serve killed between a report's write and its record leaves: the files and the manifest line.
        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let files = fixture.reportFiles()
        try await fixture.start()
        let recorded = await eventually(timeout: .seconds(40)) {
            Set(fixture.logEvents("report.skipped").compactMap { $0["app"]?.stringValue }) == ["shop", "blog"]
        }
        #expect(recorded, "\(fixture.log.suffix(3000))")
        #expect(fixture.logEvents("report.generated").isEmpty, "no second report for the day")
        #expect(fixture.reportFiles().filter { $0.hasSuffix(".json") } == files.filter { $0.hasSuffix(".json") })
        #expect(await fixture.stop() == [0])
        // Recorded for the day: the next start does nothing more.
        let store = try await SQLiteStore.open(path: fixture.directory.file("lifecycle.sqlite"))
        let day = try await store.read { try $0.lastDailyReportDay(app: "shop") }
        await store.close()
        #expect(day == schedule.day)
    }

    /// Records sources whose query sorts fifty million subjects before its first row: minutes of reconcile.
    enum EndlessRecords: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres

        var testDescription: String { rawValue }

        static var available: [EndlessRecords] { HarnessStore.postgresServer == nil ? [.sqlite] : allCases }

        func source() -> JSONValue {
            switch self {
            case .sqlite:
                [
                    "type": "sqlite", "path": "app.sqlite",
                    "query": """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 50000000)
                    SELECT printf('%012d.endless.0001', x) AS sub FROM n
                    """,
                ]
            case .postgres:
                [
                    "type": "postgres", "url": .string(HarnessStore.postgresServer ?? ""),
                    "query":
                        "SELECT lpad(g::text, 12, '0') || '.endless.0001' AS sub FROM generate_series(1, 50000000) g",
                ]
            }
        }
    }

    @Test(
        "SIGTERM during a long scheduled reconcile, its records query still sorting: serve stops within seconds, the run is marked failed, no report",
        arguments: EndlessRecords.available)
    func stopDuringReconcile(records: EndlessRecords) async throws {
        let schedule = Self.schedulePassed(by: 120)
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(records: records.source())],
            extra: ["reconcile": ["dailyAt": "03:15", "timeZone": "Asia/Seoul"]],
            clockOffsetSeconds: schedule.offset)
        try fixture.createAppDatabase("app.sqlite", subjects: [])
        try await Self.recordWritten(day: schedule.dayBefore, apps: ["shop"], in: fixture)
        let process = try await fixture.start()
        #expect(await eventually(timeout: .seconds(30)) { !fixture.logEvents("reconcile.started").isEmpty })
        try await Task.sleep(for: .seconds(1))
        #expect(fixture.logEvents("reconcile.finished").isEmpty, "still reconciling when the stop comes")
        let (status, took) = await process.terminate()
        #expect(status == 0)
        #expect(took < .seconds(10), "the stop waited \(took) for the reconcile")
        #expect(
            fixture.logEvents("reconcile.failed").first?["error"]
                == "stopped before it finished (the process is shutting down)",
            "the run is logged as failed: \(fixture.log.suffix(1500))")
        let store = try await SQLiteStore.open(path: fixture.directory.file("lifecycle.sqlite"))
        let runs = try await store.read { try $0.reconcileRuns(limit: 5) }
        await store.close()
        #expect(runs.map(\.status) == [.failed], "recorded as failed in the store, not left running")
        #expect(fixture.logEvents("report.generated").isEmpty)
    }
}
