import Foundation
import LifecycleDevTools

/// `lifecycle bench`: the project's own benchmarks, self-contained and reproducible.
struct BenchCommand: LifecycleCommand {
    static let name = "bench"
    static let summary = "run the project's benchmarks (ingest, reconcile, report)"
    static let syntax = [
        CommandSyntax(
            "bench", action: "ingest",
            options: [
                .value("--connections", "K"), .value("--duration", "SECONDS"), .value("--bodies", "N"),
                .value("--keep", "DIR"), .value("--store", "URL"), .json,
            ]),
        CommandSyntax(
            "bench", action: "reconcile",
            options: [.value("--accounts", "N"), .value("--seed", "S"), .value("--keep", "DIR"), .json]),
        CommandSyntax(
            "bench", action: "report",
            options: [
                .value("--events", "N"), .value("--seed", "S"), .value("--policies", "DIR"), .value("--keep", "DIR"),
                .json,
            ]),
    ]
    static let details = """
        ingest: generates a stand-in Apple key, signs N unique notifications, starts the real service on
        127.0.0.1 with a fresh SQLite file, drives it closed-loop over K keep-alive connections for the
        duration, and reports requests/s, p50/p99/p99.9 latency and how many acknowledged (200) notifications
        are missing from the database (must be 0). Build in release mode for meaningful numbers:
          swift build -c release && .build/release/lifecycle bench ingest --connections 16 --duration 10

        options:
          --connections K     concurrent keep-alive connections (default 16)
          --duration SECONDS  how long to drive load (default 10)
          --bodies N          unique notifications to pre-sign (default 120000; the run stops early if
                              they run out)
          --keep DIR          work in DIR and keep the database and server log there
          --store URL         the store to ingest into instead of a fresh SQLite file, e.g. a scratch
                              PostgreSQL database: postgres://USER@HOST/DATABASE (rows are added to it)
          --json              print the report as JSON

        reconcile: generates (seeded, reproducible) a service store of N accounts in a realistic mix of states
        (85% linked, 5% e-mail off, 5% consent revoked, 5% deleted with erasure jobs) and an app SQLite
        database of about N users rows with a few thousand planted discrepancies, runs the real reconciler
        with the SQLite record source, and reports setup and run time, records/s and peak resident memory.
        Exits 1 unless the findings are exactly the planted discrepancies.
          swift build -c release && .build/release/lifecycle bench reconcile --accounts 1000000

        options:
          --accounts N        accounts to generate (default 100000)
          --seed S            generator seed (default 1); the same seed gives the same data
          --keep DIR          work in DIR and keep the store and app database there
          --json              print the report as JSON

        report: generates (seeded, reproducible) a service store holding one app's month (November 2026) of N
        deletion requests (70% account-deleted, 20% in-app, 10% consent-revoked) with the erasure jobs the
        shipped default policy plans for each, run to a realistic mix of ends (most on time, 3% late, about 1%
        failed or still retrying past the deadline, a few unproven, held, extended or refused) and the last
        reconcile's findings; then generates that month's deletion-compliance report with the same generator
        as report generate and serve, and reports setup and run time (with the run's phases: collect and
        assemble, the three files, the log's append, the receipts), requests/s, peak resident memory and
        the files' sizes, then verifies the written report (timed and measured apart). Exits 1 unless it
        verifies and lists every request.
          swift build -c release && .build/release/lifecycle bench report --events 1000000

        options:
          --events N          deletion requests to generate (default 100000)
          --seed S            generator seed (default 1); the same seed gives the same store and report
          --policies DIR      the erasure policies, default.json among them (default: policies, as in the
                              repository root)
          --keep DIR          work in DIR and keep the store, configuration and report files there
          --json              print the report as JSON
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let parsed = try parseOptions(&arguments)
        switch parsed.benchmark {
        case .ingest(let options):
            let report = try await IngestBenchmark.run(options) { line in io.printError(line) }
            io.print(parsed.json ? report.json.serialized(pretty: true) : report.text)
            return report.missingFromStore == 0 ? ExitStatus.success : ExitStatus.negative
        case .reconcile(let options):
            let report = try await ReconcileBenchmark.run(options) { line in io.printError(line) }
            io.print(parsed.json ? report.json.serialized(pretty: true) : report.text)
            return report.matches ? ExitStatus.success : ExitStatus.negative
        case .report(let options):
            let report = try await ReportBenchmark.run(options) { line in io.printError(line) }
            io.print(parsed.json ? report.json.serialized(pretty: true) : report.text)
            return report.succeeded ? ExitStatus.success : ExitStatus.negative
        }
    }

    enum Benchmark {
        case ingest(IngestBenchmark.Options)
        case reconcile(ReconcileBenchmark.Options)
        case report(ReportBenchmark.Options)
    }

    static func parseOptions(_ arguments: inout CommandArguments) throws(UsageError) -> (
        benchmark: Benchmark, json: Bool
    ) {
        let json = arguments.flag("--json")
        let directory = try arguments.option("--keep")
        let storeURL = try arguments.option("--store")
        let connections = try arguments.integerOption("--connections", range: 1...1024)
        let duration = try arguments.integerOption("--duration", range: 1...3600)
        let bodies = try arguments.integerOption("--bodies", range: 1...10_000_000)
        let accounts = try arguments.integerOption("--accounts", range: 1...50_000_000)
        let seed = try arguments.integerOption("--seed", range: 0...Int.max)
        let events = try arguments.integerOption("--events", range: 1...50_000_000)
        let policies = try arguments.option("--policies")
        // The parser took only the options of the named benchmark (``syntax``).
        switch try arguments.positionals(max: 1).first {
        case "ingest":
            var options = IngestBenchmark.Options()
            if let connections { options.connections = connections }
            if let duration { options.duration = .seconds(duration) }
            if let bodies { options.bodyCount = bodies }
            options.directory = directory
            options.storeURL = storeURL
            return (.ingest(options), json)
        case "report":
            var options = ReportBenchmark.Options()
            if let events { options.events = events }
            if let seed { options.seed = UInt64(seed) }
            if let policies { options.policiesDirectory = policies }
            options.directory = directory
            return (.report(options), json)
        default:
            var options = ReconcileBenchmark.Options()
            if let accounts { options.accounts = accounts }
            if let seed { options.seed = UInt64(seed) }
            options.directory = directory
            return (.reconcile(options), json)
        }
    }
}
