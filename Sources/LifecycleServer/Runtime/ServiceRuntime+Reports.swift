import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleReports
import LifecycleStore

/// The deletion-compliance reports `serve` writes itself: each day's after the scheduled reconcile, and, at
/// start, the finishing of any report a crash interrupted.
extension ServiceRuntime {
    /// At start, each app's reports as a crash left them are finished (``ReportWriter/recover(app:)``): files of
    /// the last report a crash kept from their names take them, and lines the transparency log lacks are
    /// appended with their receipts, so `report verify` passes again within moments rather than after the next
    /// daily report. An app with no manifest is not touched, and no signing key is ever made here. Each app's
    /// outcome is one line: `report.recovered` when anything was done, `report.recovery_failed` with the reason.
    func recoverReports() async {
        let configuration = context.configuration
        let directory = configuration.reports.directory
        let apps = configuration.apps.map(\.id).filter {
            FileManager.default.fileExists(atPath: directory + "/" + $0 + "/" + ReportManifestLine.fileName)
        }
        guard !apps.isEmpty else { return }
        let log = context.log
        await BlockingExecutor.shared.run { () -> Void in
            func failed(_ app: String, _ reason: String) {
                log.log(.error, "report.recovery_failed", app: app, [("error", .string(reason))])
            }
            // The key that signed the manifests, never a new one made here.
            let keyFile = configuration.reports.signingKeyFile
            let writer: ReportWriter
            do {
                guard FileManager.default.fileExists(atPath: keyFile) else {
                    for app in apps { failed(app, "\(keyFile): the report signing key is missing; fix: restore it") }
                    return
                }
                writer = ReportWriter(directory: directory, signingKey: try ReportKeys.signingKey(path: keyFile))
            } catch {
                for app in apps { failed(app, String(describing: error)) }
                return
            }
            for app in apps {
                do {
                    guard let recovered = try writer.recover(app: app),
                        recovered.placedFiles > 0 || !recovered.log.appendedLines.isEmpty
                            || recovered.log.receiptsWritten > 0
                    else { continue }
                    log.log(
                        .info, "report.recovered", app: app,
                        [
                            ("placedFiles", .integer(Int64(recovered.placedFiles))),
                            ("loggedLines", .array(recovered.log.appendedLines.map { .integer(Int64($0)) })),
                            ("receiptsWritten", .integer(Int64(recovered.log.receiptsWritten))),
                        ])
                } catch {
                    failed(app, String(describing: error))
                }
            }
        }
    }

    /// Every app's deletion-compliance report for the scheduled `day`, after the scheduled reconcile
    /// (DESIGN.md §9): the default period, the last 30 UTC days up to the end of today, as `lifecycle report
    /// generate` uses.
    ///
    /// Once per day across every instance on the store: written under ``Store/withExclusiveLock(named:_:)``
    /// (``dailyReportLock``: a PostgreSQL advisory lock shared by every instance on the database, a `flock`
    /// beside a SQLite file), and each app's reports are recorded as written for `day`
    /// (``DailyReportRecord``) in the store, so an instance that reaches the schedule later the same day, or
    /// finds the lock taken, logs `report.skipped` and writes nothing. An app whose reports were written is
    /// recorded at once, so a crash half-way leaves only the others for the next instance.
    ///
    /// With `since` (the scheduled occurrence), an app whose newest manifest line was generated at or after it
    /// is recorded without a second report: a crash (or a stop) came between its write and its record.
    /// A stop ends the loop between two apps, and inside one app's report anywhere before its manifest line
    /// (``ReportWriter/write(_:)``), leaving nothing behind.
    func writeDailyReports(day: String, since occurrence: Instant? = nil) async {
        let (context, instance) = (self.context, instanceID)
        do {
            let ran: Bool? = try await context.store.withExclusiveLock(named: Self.dailyReportLock) {
                let configuration = context.configuration
                let now = context.clock.now()
                let generator = try ReportGenerator(configuration: configuration, store: context.store)
                let period = ReportPeriod.recent(asOf: now)
                var already: [JSONValue] = []
                for app in configuration.apps where !Task.isCancelled {
                    let appID = app.id
                    if try await context.store.read({ try $0.dailyReport(day: day, app: appID) }) != nil {
                        already.append(.string(appID))
                        continue
                    }
                    let record = DailyReportRecord(day: day, app: appID, instance: instance, writtenAt: now)
                    if let occurrence,
                        let last = ReportWriter.newestReport(app: appID, in: configuration.reports.directory),
                        last >= occurrence
                    {
                        _ = try await context.store.write { writer in try writer.recordDailyReport(record) }
                        context.log.log(
                            .info, "report.skipped", app: appID,
                            [
                                ("day", .string(day)), ("reason", "written before a restart, now recorded"),
                                ("generatedAt", .string(last.iso8601)),
                            ])
                        continue
                    }
                    context.log.log(.info, "report.started", app: appID, [("day", .string(day))])
                    let written = try await generator.generate(app: appID, period: period, at: now)
                    _ = try await context.store.write { writer in try writer.recordDailyReport(record) }
                    context.log.log(
                        .info, "report.generated", app: appID,
                        [("day", .string(day)), ("files", .integer(Int64(written.files.count)))])
                }
                if !already.isEmpty {
                    context.log.info(
                        "report.skipped",
                        [("day", .string(day)), ("reason", "already written for this day"), ("apps", .array(already))])
                }
                return true
            }
            if ran == nil {
                context.log.info(
                    "report.skipped",
                    [
                        ("day", .string(day)), ("reason", "another instance holds the lock"),
                        ("lock", .string(Self.dailyReportLock)),
                    ])
            }
        } catch is CancellationError {
            context.log.info(
                "report.stopped",
                [("day", .string(day)), ("reason", "serve is stopping; the next start's catch-up writes what is left")])
        } catch {
            context.log.log(
                .error, "report.failed", [("day", .string(day)), ("error", .string(String(describing: error)))])
        }
    }

    /// The name of the exclusive lock the daily reports are generated under.
    static let dailyReportLock = "daily-report"
}
