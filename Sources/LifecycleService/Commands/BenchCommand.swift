import Foundation

/// `lifecycle bench`: the project's own benchmarks, self-contained and reproducible.
struct BenchCommand: LifecycleCommand {
    static let name = "bench"
    static let summary = "run the project's benchmarks (ingest)"
    static let help = """
        usage: lifecycle bench ingest [--connections K] [--duration SECONDS] [--bodies N] [--keep DIR]
                                      [--store URL] [--json]

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
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let positionals = try parseOptions(&arguments)
        guard positionals.benchmark == "ingest" else {
            throw UsageError("unknown benchmark '\(positionals.benchmark)'; available: ingest")
        }
        let report = try await IngestBenchmark.run(positionals.options) { line in io.printError(line) }
        io.print(positionals.json ? report.json.serialized(pretty: true) : report.text)
        return report.missingFromStore == 0 ? ExitStatus.success : ExitStatus.negative
    }

    static func parseOptions(
        _ arguments: inout CommandArguments
    ) throws(UsageError) -> (benchmark: String, options: IngestBenchmark.Options, json: Bool) {
        var options = IngestBenchmark.Options()
        if let connections = try arguments.integerOption("--connections", range: 1...1024) {
            options.connections = connections
        }
        if let seconds = try arguments.integerOption("--duration", range: 1...3600) {
            options.duration = .seconds(seconds)
        }
        if let bodies = try arguments.integerOption("--bodies", range: 1...10_000_000) { options.bodyCount = bodies }
        options.directory = try arguments.option("--keep")
        options.storeURL = try arguments.option("--store")
        let json = arguments.flag("--json")
        _ = try arguments.option("--config")
        guard let benchmark = try arguments.positionals(max: 1).first else {
            throw UsageError("name a benchmark: ingest")
        }
        return (benchmark, options, json)
    }
}
