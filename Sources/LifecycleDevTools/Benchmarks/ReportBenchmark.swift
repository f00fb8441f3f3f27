import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleReports
import LifecycleSQL
import LifecycleStore

/// `lifecycle bench report`: a month's deletion-compliance report over N deletion requests, self-contained and
/// reproducible.
///
/// Setup writes (seeded, streaming, straight into the SQLite store file the service migrated, in large
/// transactions) an app's month of N deletion requests: accounts, history, the erasure jobs the app's policy
/// plans for each (``ErasurePlanner``), their steps in a realistic mix of ends, request decisions, Apple
/// revocations, destroyed data keys and the last reconcile's findings. The run is what `lifecycle report
/// generate` and `serve`'s daily report run — ``ReportGenerator`` over the store — timed apart from the setup,
/// with the peak resident memory; then the written files are checked with ``ReportVerifier``.
package struct ReportBenchmark {
    package struct Options {
        package var events = 100_000
        package var seed: UInt64 = 1
        package var directory: String?
        /// The erasure policies; the app uses `default`.
        package var policiesDirectory = "policies"
        /// Requests per setup transaction.
        var writeBatch = 20_000

        package init() {}
    }

    static let appID = "bench"
    static let policyID = "default"
    static let appTarget = "app-db"
    /// The month reported on: November 2026, UTC.
    static let period = ReportPeriod(
        from: Instant(millisecondsSinceEpoch: 1_793_491_200_000), to: Instant(millisecondsSinceEpoch: 1_796_083_200_000)
    )
    /// Generated on 2027-01-10: every one-month deadline of the period has passed, two-month ones have not.
    static let generatedAt = Instant(millisecondsSinceEpoch: 1_799_539_200_000)

    package struct Report {
        var events: Int
        var seed: UInt64
        var jobs: Int
        var steps: Int
        var setupSeconds: Double
        var runSeconds: Double
        /// Where the run's time went: collect and assemble, the three files, the log's append, the receipts.
        var phases: [(name: String, seconds: Double)]
        /// The `report verify` of the written files, timed apart from the run.
        var verifySeconds: Double
        /// The verify's own peak resident set size (the peak is reset when it starts).
        var verifyPeakKiB: Int
        var peakKiBAfterSetup: Int
        var peakKiB: Int
        var files: [(name: String, bytes: Int)]
        var summary: ReportTypeSummary
        var rows: Int
        var verified: Bool
        var problem: String?

        var requestsPerSecond: Double { runSeconds > 0 ? Double(rows) / runSeconds : 0 }
        package var succeeded: Bool { verified && rows == events && summary.received == events }

        package var json: JSONValue {
            var files = JSONObject()
            for file in self.files { files[file.name] = .integer(Int64(file.bytes)) }
            return [
                "events": .integer(Int64(events)), "seed": .integer(Int64(truncatingIfNeeded: seed)),
                "jobs": .integer(Int64(jobs)), "steps": .integer(Int64(steps)),
                "setupSeconds": .number(rounded(setupSeconds)), "runSeconds": .number(rounded(runSeconds)),
                "verifySeconds": .number(rounded(verifySeconds)),
                "verifyPeakResidentKiB": .integer(Int64(verifyPeakKiB)),
                "phaseSeconds": .object(JSONObject(members: phases.map { ($0.name, .number(rounded($0.seconds))) })),
                "requestsPerSecond": .number(requestsPerSecond.rounded()), "rows": .integer(Int64(rows)),
                "peakResidentKiBAfterSetup": .integer(Int64(peakKiBAfterSetup)),
                "peakResidentKiB": .integer(Int64(peakKiB)), "fileBytes": .object(files),
                "received": .integer(Int64(summary.received)), "completed": .integer(Int64(summary.completed)),
                "overdue": .integer(Int64(summary.overdue)), "failed": .integer(Int64(summary.failed)),
                "pending": .integer(Int64(summary.pending)), "cancelled": .integer(Int64(summary.cancelled)),
                "verified": .bool(verified), "problem": problem.map { .string($0) } ?? .null,
                "succeeded": .bool(succeeded),
            ]
        }

        package var text: String {
            let sizes = files.map { "\($0.name) \(String(format: "%.1f", Double($0.bytes) / 1_048_576)) MiB" }
            return """
                requests        \(events) deletion requests in one month (seed \(seed)), \(jobs) erasure jobs, \(steps) steps
                setup           \(format(setupSeconds)) s (store written directly, not part of the run)
                report          \(format(runSeconds)) s, \(Int(requestsPerSecond.rounded())) requests/s (collect, assemble, render, write, sign)
                phases          \(phases.map { "\($0.name) \(format($0.seconds)) s" }.joined(separator: ", "))
                peak memory     \(peakKiBAfterSetup / 1024) MiB after setup, \(peakKiB / 1024) MiB at the end (peak resident set size, VmHWM)
                files           \(sizes.joined(separator: ", "))
                outcomes        \(summary.received) received: \(summary.completed) completed, \(summary.overdue) overdue, \(summary.failed) failed, \(summary.pending) pending, \(summary.cancelled) cancelled
                verify          \(format(verifySeconds)) s, peak \(verifyPeakKiB / 1024) MiB: \(verified ? "the written report verifies (file hashes, hash chain, signature, log)" : "FAILED: \(problem ?? "unknown")")
                """
        }

        private func format(_ value: Double) -> String { String(format: "%.2f", value) }
        private func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
    }

    package static func run(_ options: Options, progress: @Sendable (String) -> Void) async throws -> Report {
        let directory = try BenchmarkSupport.workDirectory(options.directory)
        defer { if options.directory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let policies = URL(fileURLWithPath: options.policiesDirectory).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: policies + "/\(policyID).json") else {
            throw BenchmarkError(
                "\(policies)/\(policyID).json: no such policy file; fix: run from the repository root or pass "
                    + "--policies DIR")
        }
        let population = ReportBenchmarkPopulation(count: options.events, seed: options.seed, period: period)
        let clock = ContinuousClock()
        BenchmarkSupport.resetPeakResident()
        let setupStarted = clock.now

        progress("writing the service store (\(options.events) deletion requests) …")
        let configPath = try writeConfiguration(directory: directory, policies: policies)
        let configuration = try ServiceConfiguration.load(file: configPath, environment: [:])
        // Opening migrates the store and registers the master key; the bulk load then writes the file alone.
        var context = try await ServiceContext.open(configuration: configuration, logSink: { _ in })
        let masterKey = try await context.store.read { try $0.masterKeys() }.first { $0.state == .current }?.id
        await context.close()
        let written = try ReportBenchmarkStore(
            population: population, configuration: configuration, masterKeyID: masterKey, batch: options.writeBatch
        ).write(path: directory + "/service.sqlite")
        let setupDone = clock.now
        let peakAfterSetup = BenchmarkSupport.peakResidentKiB()

        progress("generating the report …")
        context = try await ServiceContext.open(configuration: configuration, logSink: { _ in })
        let report: ReportWriter.Written
        do {
            report = try await ReportGenerator(configuration: configuration, store: context.store).generate(
                app: appID, period: period, at: generatedAt)
        } catch {
            await context.close()
            throw error
        }
        let runDone = clock.now
        let peak = BenchmarkSupport.peakResidentKiB()
        await context.close()

        progress("verifying the written report …")
        BenchmarkSupport.resetPeakResident()
        let verification = try ReportVerifier.verify(
            directory: configuration.reports.directory,
            publicKey: try ReportKeys.publicKey(
                path: ReportKeys.publicKeyPath(forSigningKey: configuration.reports.signingKeyFile)))
        let verifyDone = clock.now
        let files = report.files.map { path in
            (
                name: String(path.split(separator: ".").last ?? ""),
                bytes: ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
            )
        }
        return Report(
            events: options.events, seed: options.seed, jobs: written.jobs, steps: written.steps,
            setupSeconds: (setupDone - setupStarted).inSeconds,
            runSeconds: (runDone - setupDone).inSeconds,
            phases: [
                ("collect", report.collectSeconds), ("files", report.fileSeconds), ("log", report.log.appendSeconds),
                ("receipts", report.log.receiptSeconds),
            ],
            verifySeconds: (verifyDone - runDone).inSeconds,
            verifyPeakKiB: BenchmarkSupport.peakResidentKiB(), peakKiBAfterSetup: peakAfterSetup,
            peakKiB: peak, files: files, summary: report.dataset.summary.total,
            rows: report.dataset.summary.total.received,
            verified: verification.broken == nil && verification.verifiedReports == 1,
            problem: verification.broken.map { "\($0)" })
    }

    /// One app under the shipped default policy, its categories in the app's database and the service's own
    /// copies (as the demo maps them), reports in `reports/`.
    static func writeConfiguration(directory: String, policies: String) throws -> String {
        try Data(#"{"keys":[]}"#.utf8).write(to: URL(fileURLWithPath: directory + "/jwks.json"))
        var categories = JSONObject()
        for category in DataCategory.allCases {
            categories[category.canonicalName] = category == .appleTokens ? ["self"] : [.string(appTarget), "self"]
        }
        let config: JSONValue = [
            "storage": ["url": "sqlite:service.sqlite"],
            "admin": ["enabled": false],
            "apple": ["jwks": "jwks.json"],
            "apps": [
                [
                    "id": .string(appID), "clientIds": ["com.example.bench"], "policy": .string(policyID),
                    "targets": [
                        "app-db": [
                            "type": "sqlite", "path": "app.sqlite",
                            "statements": ["DELETE FROM users WHERE apple_sub = :sub"],
                            "verify": "SELECT count(*) FROM users WHERE apple_sub = :sub",
                        ]
                    ],
                    "categories": .object(categories),
                ]
            ],
            "policiesDirectory": .string(policies),
            "pseudonymKeyFile": "pseudonym.key",
            "reports": ["directory": "reports", "signingKeyFile": "report-ed25519.pem"],
            "erasure": ["runInServe": false],
        ]
        let path = directory + "/lifecycle.json"
        try Data(config.serialized().utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
