import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleReconcile
import LifecycleSQL
import LifecycleStore

#if canImport(Glibc)
    import Glibc
#endif

/// `lifecycle bench reconcile`: the nightly reconciler over N accounts, self-contained and reproducible.
///
/// Generates (seeded, streaming) a service store of N accounts in a realistic mix of states with their
/// erasure jobs, and an app SQLite database of about N `users` rows with a few thousand planted
/// discrepancies; then runs the real ``Reconciler`` with the app's SQLite record source and reports wall
/// time, records/s and peak resident memory, and checks that the findings are exactly the planted ones.
package struct ReconcileBenchmark {
    package struct Options {
        package var accounts = 100_000
        package var seed: UInt64 = 1
        package var directory: String?

        /// Accounts per store write (one transaction each) while seeding.
        var writeBatch = 10_000
        /// Rows per `INSERT` statement and statements per transaction while writing the app database.
        var rowsPerInsert = 500
        var insertsPerTransaction = 20

        package init() {}
    }

    /// Deadlines are judged as of this fixed instant (2027-01-15), so every run sees the same findings.
    static let asOf = Instant(secondsSinceEpoch: 1_800_000_000)
    static let appID = "bench"
    /// The app's records query, as an operator would configure it.
    static let recordsQuery = "SELECT apple_sub AS sub, status, sessions FROM users"
    /// One silence planted in the heartbeats: a `notification-gap` finding.
    static let silence = FindingWindow(
        from: asOf.adding(seconds: -20 * 3600), to: asOf.adding(seconds: -18 * 3600))

    package struct Report {
        var accounts: Int
        var appRows: Int
        var seed: UInt64
        var setupSeconds: Double
        var appDatabaseSeconds: Double
        var serviceStoreSeconds: Double
        var runSeconds: Double
        var recordsRead: Int
        var accountsRead: Int
        var registered: Int
        var peakKiBAfterSetup: Int
        var peakKiB: Int
        var expected: [FindingCode: Int]
        var found: [FindingCode: Int]

        var recordsPerSecond: Double { runSeconds > 0 ? Double(recordsRead) / runSeconds : 0 }
        package var matches: Bool {
            expected == found && registered == (expected[.unknownToService] ?? 0) && recordsRead == appRows
                && accountsRead == accounts
        }

        package var json: JSONValue {
            func counts(_ counts: [FindingCode: Int]) -> JSONValue {
                var object = JSONObject()
                for (code, count) in counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    object[code.rawValue] = .integer(Int64(count))
                }
                return .object(object)
            }
            return [
                "accounts": .integer(Int64(accounts)), "appRows": .integer(Int64(appRows)),
                "seed": .integer(Int64(truncatingIfNeeded: seed)), "setupSeconds": .number(rounded(setupSeconds)),
                "runSeconds": .number(rounded(runSeconds)), "recordsRead": .integer(Int64(recordsRead)),
                "accountsRead": .integer(Int64(accountsRead)), "registered": .integer(Int64(registered)),
                "recordsPerSecond": .number(recordsPerSecond.rounded()),
                "peakResidentKiBAfterSetup": .integer(Int64(peakKiBAfterSetup)),
                "peakResidentKiB": .integer(Int64(peakKiB)), "expectedFindings": counts(expected),
                "foundFindings": counts(found), "matches": .bool(matches),
            ]
        }

        package var text: String {
            let codes = Set(expected.keys).union(found.keys).sorted { $0.rawValue < $1.rawValue }
            let rows = codes.map { code in
                let name = code.rawValue.padding(toLength: 26, withPad: " ", startingAt: 0)
                let mark = expected[code] == found[code] ? "" : "   <- mismatch"
                return "  \(name) expected \(expected[code] ?? 0), found \(found[code] ?? 0)\(mark)"
            }
            return """
                accounts        \(accounts) service accounts, \(appRows) app rows (seed \(seed))
                setup           \(format(setupSeconds)) s (app database \(format(appDatabaseSeconds)) s, service store \(format(serviceStoreSeconds)) s)
                reconcile       \(format(runSeconds)) s, \(Int(recordsPerSecond.rounded())) records/s (\(recordsRead) app records, \(accountsRead) accounts read, \(registered) registered)
                peak memory     \(peakKiBAfterSetup / 1024) MiB after setup, \(peakKiB / 1024) MiB at the end (peak resident set size, VmHWM)
                findings
                \(rows.joined(separator: "\n"))
                result          \(matches ? "every planted discrepancy found, nothing else" : "MISMATCH between planted and found")
                """
        }

        private func format(_ value: Double) -> String { String(format: "%.2f", value) }
        private func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
    }

    package static func run(_ options: Options, progress: @Sendable (String) -> Void) async throws -> Report {
        let directory = try BenchmarkSupport.workDirectory(options.directory)
        defer { if options.directory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let population = ReconcileBenchmarkPopulation(count: options.accounts, seed: options.seed, asOf: asOf)
        let clock = ContinuousClock()
        BenchmarkSupport.resetPeakResident()
        let setupStarted = clock.now

        progress("writing the app database (\(options.accounts) accounts) …")
        let appPath = directory + "/app.sqlite"
        let appRows = try writeAppDatabase(population, path: appPath, options: options)
        let appDatabaseDone = clock.now

        progress("writing the service store …")
        let configPath = try writeConfiguration(directory: directory, appPath: appPath)
        let configuration = try ServiceConfiguration.load(file: configPath, environment: [:])
        let context = try await ServiceContext.open(configuration: configuration, logSink: { _ in })
        var expected = try await seedStore(population, store: context.store, batch: options.writeBatch)
        expected[.notificationGap] = 1
        let setupDone = clock.now
        let peakAfterSetup = BenchmarkSupport.peakResidentKiB()

        progress("reconciling …")
        let report: Reconciler.Report
        do {
            report = try await Reconciler(
                store: context.store, log: context.log, clock: context.clock, active: { context.current },
                owner: "bench"
            ).run(asOf: asOf)
        } catch {
            await context.close()
            throw error
        }
        let runDone = clock.now
        let peak = BenchmarkSupport.peakResidentKiB()
        await context.close()

        var found: [FindingCode: Int] = [:]
        for finding in report.findings { found[finding.code, default: 0] += 1 }
        let app = report.apps.first
        return Report(
            accounts: options.accounts, appRows: appRows, seed: options.seed,
            setupSeconds: (setupDone - setupStarted).inSeconds,
            appDatabaseSeconds: (appDatabaseDone - setupStarted).inSeconds,
            serviceStoreSeconds: (setupDone - appDatabaseDone).inSeconds,
            runSeconds: (runDone - setupDone).inSeconds,
            recordsRead: app?.recordsRead ?? 0, accountsRead: app?.accountsRead ?? 0, registered: app?.registered ?? 0,
            peakKiBAfterSetup: peakAfterSetup, peakKiB: peak, expected: expected.filter { $0.value > 0 }, found: found)
    }

    /// `users(id, apple_sub, status, sessions, created_at_ms)` in sign-up order, with a unique index on
    /// `apple_sub` built after the load (as an app's migration would have it). Values are generated digits,
    /// hex and fixed words, so they are written as literals: the tool's connection binds only `:sub`.
    static func writeAppDatabase(
        _ population: ReconcileBenchmarkPopulation, path: String, options: Options
    ) throws -> Int {
        let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: 5000, create: true)
        defer { database.close() }
        _ = try database.executeInTransaction(
            [
                """
                CREATE TABLE users (id INTEGER PRIMARY KEY, apple_sub TEXT NOT NULL, status TEXT NOT NULL,
                    sessions INTEGER NOT NULL DEFAULT 0, created_at_ms INTEGER NOT NULL)
                """
            ], parameters: [:])
        var rows = 0
        var statements: [String] = []
        var values: [String] = []
        func flushInsert() {
            guard !values.isEmpty else { return }
            statements.append(
                "INSERT INTO users (apple_sub, status, sessions, created_at_ms) VALUES " + values.joined(separator: ",")
            )
            values.removeAll(keepingCapacity: true)
        }
        func flushTransaction() throws {
            flushInsert()
            guard !statements.isEmpty else { return }
            _ = try database.executeInTransaction(statements, parameters: [:])
            statements.removeAll(keepingCapacity: true)
        }
        for position in 0..<population.count {
            let account = population.account(population.signupOrder(position))
            for row in [account.appRow, account.unknownRow].compactMap({ $0 }) {
                values.append(
                    "('\(row.subject)','\(row.status)',\(row.sessions),\(account.record.createdAt.millisecondsSinceEpoch))"
                )
                rows += 1
                if values.count == options.rowsPerInsert {
                    flushInsert()
                    if statements.count == options.insertsPerTransaction { try flushTransaction() }
                }
            }
        }
        try flushTransaction()
        _ = try database.executeInTransaction(
            ["CREATE UNIQUE INDEX users_apple_sub ON users (apple_sub)"], parameters: [:])
        return rows
    }

    static func writeConfiguration(directory: String, appPath: String) throws -> String {
        try Data(#"{"keys":[]}"#.utf8).write(to: URL(fileURLWithPath: directory + "/jwks.json"))
        let config: JSONValue = [
            "storage": ["url": "sqlite:service.sqlite"],
            "admin": ["enabled": false],
            "apple": ["jwks": "jwks.json"],
            "apps": [
                [
                    "id": .string(appID), "clientIds": ["com.example.bench"],
                    "records": ["type": "sqlite", "path": .string(appPath), "query": .string(recordsQuery)],
                ]
            ],
            "pseudonymKeyFile": "pseudonym.key",
        ]
        let path = directory + "/lifecycle.json"
        try Data(config.serialized().utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The service's accounts in `sub` order, `batch` per transaction, each deleted one with its erasure job;
    /// heartbeats with one silence; then the erasure jobs run to their planted ends. Returns the findings the
    /// reconciler must give, by code.
    static func seedStore(
        _ population: ReconcileBenchmarkPopulation, store: any Store, batch: Int
    ) async throws -> [FindingCode: Int] {
        var expected: [FindingCode: Int] = [:]
        var start = 0
        while start < population.count {
            let range = start..<min(population.count, start + batch)
            let counts = try await store.write { writer in
                var counts: [FindingCode: Int] = [:]
                for index in range {
                    let account = population.account(index)
                    try writer.saveAccount(app: appID, subject: account.subject, record: account.record)
                    if let plan = account.erasure {
                        try writer.insertErasureJob(
                            app: appID, subject: account.subject, plan: plan, createdAt: plan.eventTime)
                    }
                    for code in account.expected { counts[code, default: 0] += 1 }
                }
                return counts
            }
            expected.merge(counts, uniquingKeysWith: +)
            start = range.upperBound
        }
        try await store.write { writer in
            let lookback = Int64(ReconcileConfiguration.defaults.lookbackHours + 2) * 3600
            var at = asOf.adding(seconds: -lookback)
            while at < asOf {
                if !(at >= silence.from && at < silence.to) { try writer.recordHeartbeat(instance: "bench", at: at) }
                at = at.adding(seconds: 60)
            }
        }
        try await runErasureJobs(population, store: store, batch: batch)
        return expected
    }

    /// Claims every due step (the erased accounts') through the runner's own store calls and records its
    /// planted end: done, failed, or left running past the deadline. Recent deletions are not due yet.
    static func runErasureJobs(_ population: ReconcileBenchmarkPopulation, store: any Store, batch: Int) async throws {
        while true {
            let claimed = try await store.write { writer in
                let steps = try writer.claimErasureSteps(
                    now: asOf, owner: "bench", leaseUntil: asOf.adding(seconds: 86_400), limit: batch)
                for claimed in steps {
                    guard let index = ReconcileBenchmarkPopulation.index(ofSubject: claimed.job.subject) else {
                        continue
                    }
                    let account = population.account(index)
                    let finished = claimed.job.job.plan.notBefore.adding(seconds: 3600)
                    let step: ErasureStep
                    switch account.fate {
                    case .running: continue
                    case .completed:
                        step = ErasureStep(
                            target: claimed.step.target, status: .done, attempts: 1, nextAttemptAt: nil,
                            lastAttemptAt: finished, finishedAt: finished,
                            evidence: ErasureStepEvidence(rowsAffected: 1, verificationCount: 0))
                    case .failed:
                        step = ErasureStep(
                            target: claimed.step.target, status: .failed, attempts: 1, nextAttemptAt: nil,
                            lastAttemptAt: finished, finishedAt: finished,
                            evidence: ErasureStepEvidence(responseStatus: 500, errorCode: .httpStatus(500)))
                    }
                    try writer.recordErasureStep(
                        jobID: claimed.job.id, index: claimed.stepIndex, step: step, owner: "bench", at: finished)
                }
                return steps.count
            }
            if claimed == 0 { return }
        }
    }
}
