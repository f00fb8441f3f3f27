import Foundation
import LifecycleCore
import LifecycleEngine

/// `lifecycle ingest`: replay archived notifications through the same path as the live endpoint.
struct IngestCommand: LifecycleCommand {
    static let name = "ingest"
    static let summary = "replay archived notifications (one body or JWS a line) through verification into the store"
    static let syntax = [
        CommandSyntax(
            "ingest",
            options: [.value("--file", "FILE|-", required: true), .flag("--allow-expired"), .json, .config, .logLevel])
    ]
    static let details = """
        Reads FILE (or standard input for "-"), one notification a line: a request body
        ({"payload":"<JWS>"}) or a bare compact JWS. Blank lines and lines starting with # are skipped.
        Each goes through the live path: verification, routing by aud, the same idempotent store. Running
        the same file twice stores each notification once (duplicates are reported as such).

        options:
          --file FILE|-     the archive to replay (required)
          --allow-expired   accept tokens that are valid but past exp (archives are usually older than the
                            token's 24 h lifetime); they are stored marked as accepted-expired
          --json            print the summary as JSON
          --config FILE     configuration (default: $LIFECYCLE_CONFIG, else lifecycle.json)

        exit status: 0 every line stored or duplicate, 1 some lines rejected, 2 could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        guard let file = try arguments.option("--file") else { throw UsageError("--file FILE is required") }
        let allowExpired = arguments.flag("--allow-expired")
        let json = arguments.flag("--json")
        try arguments.finish()

        let data: Data
        if file == "-" {
            data = io.readStandardInput()
        } else {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw UsageError("cannot read \(file)")
            }
            data = contents
        }
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let context = try await ServiceContext.open(configuration: configuration, io: io)
        var counts: [String: Int] = [:]
        var reasons: [String: Int] = [:]
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var bytes = Array(line)
            while let last = bytes.last, last == 0x0D || last == 0x20 || last == 0x09 { bytes.removeLast() }
            while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
            if bytes.isEmpty || bytes.first == UInt8(ascii: "#") { continue }
            let outcome = await context.ingestor.ingest(archivedLine: bytes, allowExpired: allowExpired)
            counts[outcome.outcomeName, default: 0] += 1
            switch outcome {
            case .rejected(let error):
                reasons[error.code.rawValue, default: 0] += 1
                if !json { io.printError("line \(lineNumber): rejected: \(error.code.rawValue): \(error.description)") }
            case .unavailable(let reason):
                await context.close()
                io.printError("lifecycle ingest: line \(lineNumber): \(reason); nothing after this line was stored")
                return ExitStatus.failure
            default: break
            }
        }
        await context.close()
        let names = ["accepted", "duplicate", "ignored", "rejected"]
        if json {
            var summary = JSONObject()
            for name in names { summary[name] = .integer(Int64(counts[name, default: 0])) }
            summary["rejectedByReason"] = .object(JSONObject(reasons.mapValues { JSONValue.integer(Int64($0)) }))
            io.print(JSONValue.object(summary).serialized())
        } else {
            io.print(names.map { "\($0): \(counts[$0, default: 0])" }.joined(separator: ", "))
        }
        return counts["rejected", default: 0] > 0 ? ExitStatus.negative : ExitStatus.success
    }
}
