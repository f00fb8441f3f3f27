import Foundation
import LifecycleCore
import LifecycleReports
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

    @Test(
        "a stop during the day's report (its task cancelled) leaves no file and no manifest line; the next write is whole",
        arguments: HarnessStore.available)
    func stoppedReportLeavesNothing(store kind: HarnessStore) async throws {
        try await kind.run { storageURL in
            let harness = try ServiceHarness(storageURL: storageURL)
            let service = try await harness.start()
            let reports = harness.directory.file("reports")
            let stopped = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                await service.writeDailyReports(day: "2026-11-29")
            }
            await stopped.value
            #expect(!harness.log.contains("\"report.generated\""), "a stop before the first app writes none")
            // Inside one app's report: the generate itself, stopped, throws and leaves nothing.
            let generator = try ReportGenerator(configuration: harness.configuration, store: service.context.store)
            let inside = Task { () -> (any Error)? in
                withUnsafeCurrentTask { $0?.cancel() }
                do {
                    _ = try await generator.generate(
                        app: "shop", period: ReportPeriod.recent(asOf: SystemClock().now()), at: SystemClock().now())
                    return nil
                } catch {
                    return error
                }
            }
            let thrown = await inside.value
            #expect(thrown is CancellationError, "\(String(describing: thrown))")
            // After its files are rendered, before the line names them: the write, stopped, throws and removes them.
            let configuration = try harness.configuration
            let dataset = try await ReportGenerator.dataset(
                configuration: configuration, store: service.context.store, app: "shop",
                period: ReportPeriod.recent(asOf: SystemClock().now()), at: SystemClock().now())
            let writer = ReportWriter(
                directory: configuration.reports.directory,
                signingKey: try ReportKeys.signingKey(path: configuration.reports.signingKeyFile))
            let rendered = Task { () -> (any Error)? in
                withUnsafeCurrentTask { $0?.cancel() }
                do {
                    _ = try writer.write(dataset)
                    return nil
                } catch {
                    return error
                }
            }
            let stoppedWrite = await rendered.value
            #expect(stoppedWrite is CancellationError, "\(String(describing: stoppedWrite))")
            #expect(
                ReportPipelineTests.reportFiles(reports).allSatisfy { !$0.contains("deletion-compliance") },
                "no report file, temporary or placed: \(ReportPipelineTests.reportFiles(reports))")
            let untouched = (try? String(contentsOfFile: reports + "/shop/manifest.jsonl", encoding: .utf8)) ?? ""
            #expect(untouched.isEmpty, "no manifest line: \(untouched)")

            await service.writeDailyReports(day: "2026-11-29")
            #expect(harness.log.contains("\"report.generated\""))
            let manifest = try String(contentsOfFile: reports + "/shop/manifest.jsonl", encoding: .utf8)
            #expect(manifest.split(separator: "\n").count == 1)
            #expect(manifest.contains("\"sequence\":1"), "the stopped write took no sequence number")
            await harness.stop()
        }
    }
}
