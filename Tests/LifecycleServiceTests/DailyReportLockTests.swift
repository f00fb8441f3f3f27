import Foundation
import LifecycleStore
import Testing

@testable import LifecycleEngine
@testable import LifecycleServer

/// With several instances on one database, the day's reports are written by one of them at a time: the
/// others find the `daily-report` lock taken and skip.
@Suite("Daily report held by one instance at a time")
struct DailyReportLockTests {
    @Test(
        "while another instance holds the daily-report lock the report is skipped and logged; once free it is written",
        arguments: HarnessStore.available)
    func skippedWhileAnotherInstanceHoldsTheLock(store kind: HarnessStore) async throws {
        try await kind.run { storageURL in
            let harness = try ServiceHarness(storageURL: storageURL)
            let service = try await harness.start()
            let reports = harness.directory.file("reports")

            // Another instance: a second store on the same database, holding the lock.
            let other = try await ServiceContext.openStore(try harness.configuration.storage)
            let held: Bool? = try await other.withExclusiveLock(named: ServiceRuntime.dailyReportLock) {
                await service.writeDailyReports(day: "2026-11-29")
                return true
            }
            await other.close()
            #expect(held == true)
            #expect(ReportPipelineTests.reportFiles(reports).isEmpty, "nothing written while the lock is taken")
            #expect(harness.log.contains("\"report.skipped\""))

            await service.writeDailyReports(day: "2026-11-29")
            #expect(ReportPipelineTests.reportFiles(reports).contains { $0.hasSuffix(".json") })
            #expect(harness.log.contains("\"report.generated\""))

            // The day is recorded as written: the schedule reaching it again writes nothing more.
            let before = ReportPipelineTests.reportFiles(reports)
            await service.writeDailyReports(day: "2026-11-29")
            #expect(ReportPipelineTests.reportFiles(reports) == before)
            #expect(harness.log.contains("already written for this day"))
            await harness.stop()
        }
    }
}
