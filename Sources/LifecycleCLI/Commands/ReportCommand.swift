import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleReports

/// `lifecycle report generate|verify|lookup`: deletion-compliance reports (DESIGN.md §9). A thin shell over
/// ``ReportGenerator``, ``ReportVerifier`` and ``ReportKeys``.
struct ReportCommand: LifecycleCommand {
    static let name = "report"
    static let summary = "write signed deletion-compliance reports, verify them, look up a subject's pseudonym"
    static let syntax = [
        CommandSyntax(
            "report", action: "generate",
            options: [
                .value("--app", "ID"), .value("--from", "DATE"), .value("--to", "DATE"), .json, .config, .logLevel,
            ]),
        CommandSyntax(
            "report", action: "verify", positionals: "[DIR]", count: 0...1,
            options: [.value("--public-key", "FILE"), .value("--checkpoint", "FILE"), .json, .config]),
        CommandSyntax(
            "report", action: "requests",
            options: [
                .value("--app", "ID", required: true), .value("--year", "YYYY"), .value("--from", "DATE"),
                .value("--to", "DATE"), .json, .config,
            ]),
        CommandSyntax(
            "report", action: "lookup",
            options: [.value("--app", "ID", required: true), .value("--sub", "SUB", required: true), .json, .config]),
    ]
    static let details = """
        generate  writes, per app, REPORTS/<app>/<yyyy>/<date>-deletion-compliance.{html,json,csv} for the
                  deletion requests whose event time is in [--from, --to) (default: the 30 UTC days up to and
                  including today) and appends a signed, hash-chained line to REPORTS/<app>/manifest.jsonl,
                  then the report and each of its deletion outcomes as leaves of the app's transparency log
                  REPORTS/<app>/log/ (C2SP tlog-tiles; checkpoint signed with the report signing key) and a
                  receipt per deletion request, REPORTS/<app>/receipts/*.tlog-proof (C2SP tlog-proof). What a
                  crash cut short (files kept from their names after their line, leaves kept out of the log)
                  is finished by the next generate, or by serve at start. Subjects appear only as keyed
                  pseudonyms. Keys are created on first use.
        verify    checks every manifest line's Ed25519 signature, sequence and hash chain, every listed file's
                  SHA-256, and that no report file is unlisted; then each app's log: the checkpoint's
                  signature, tiles and entries, that it holds exactly every report's leaves (with each
                  report's inclusion proof), and every receipt; with --checkpoint, that the log only grew
                  since that checkpoint (RFC 9162 consistency proof), so a rewritten, re-signed history is
                  named. Stops at the first broken item and names it. DIR is an app's report directory or the
                  reports root (default: reports.directory). Prints each log's size and note verifier key,
                  which outside C2SP verifiers take. --json prints {"verified", "broken", "reports",
                  "manifests", "logs"}.
        requests  the request ledger's totals for one app and year (or [--from, --to)), as a business
                  publishes them (CCPA regulations §7102): requests received, complied with in whole, in
                  part (categories kept under another law), denied (refused on a recorded basis:
                  lifecycle request refuse), withdrawn (the user signed in again), open, and the median days from
                  event to answer with its sample size. Writes nothing. --json prints the whole ledger:
                  {"app", "period", "totals", "requests": [one entry per request]}, as GET /v1/requests.
        lookup    prints the pseudonym reports use for one subject, for a data-subject inquiry.

        options:
          --app ID            app id from the configuration (generate: default every app)
          --from DATE         start of the period, included (RFC 3339 date or instant, UTC)
          --to DATE           end of the period, excluded
          --year YYYY         requests: the calendar year in UTC (default: the current year)
          --public-key FILE   Ed25519 public key PEM (default: the signing key's NAME.pub.pem)
          --checkpoint FILE   a log checkpoint kept from an earlier verify (REPORTS/<app>/log/checkpoint)
          --sub SUB           the Apple sub to look up (the output never repeats it)
          --json              machine-readable output
          --config FILE       configuration (default: $LIFECYCLE_CONFIG, else lifecycle.json): reports.directory,
                              reports.signingKeyFile, reports.pseudonymKeyFile

        exit status: 0 done / verified, 1 a report does not verify or the app is unknown, 2 could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let app = try arguments.option("--app")
        let fromText = try arguments.option("--from")
        let toText = try arguments.option("--to")
        let publicKeyFile = try arguments.option("--public-key")
        let checkpointFile = try arguments.option("--checkpoint")
        let subject = try arguments.option("--sub")
        let year = try arguments.option("--year")
        let json = arguments.flag("--json")
        let words = try arguments.positionals(max: 2)
        guard let action = words.first else {
            throw UsageError("say what to do: generate, verify, requests or lookup")
        }
        switch action {
        case "generate":
            return try await generate(
                configFile: configFile, app: app, fromText: fromText, toText: toText, json: json, io: io)
        case "verify":
            return try verify(
                configFile: configFile, directory: words.count > 1 ? words[1] : nil, publicKeyFile: publicKeyFile,
                checkpointFile: checkpointFile, json: json, io: io)
        case "requests":
            guard let app, !app.isEmpty else { throw UsageError("--app ID is required") }
            return try await requests(
                configFile: configFile, app: app, year: year, fromText: fromText, toText: toText, json: json, io: io)
        case "lookup":
            guard let app, !app.isEmpty else { throw UsageError("--app ID is required") }
            guard let subject, !subject.isEmpty else { throw UsageError("--sub SUB is required") }
            let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
            guard configuration.apps.contains(where: { $0.id == app }) else {
                io.printError("lifecycle report lookup: unknown app '\(app)'")
                return ExitStatus.negative
            }
            let path = configuration.reports.pseudonymKeyFile
            // Never create the key here: a new key would give a pseudonym that no report contains.
            guard FileManager.default.fileExists(atPath: path),
                let key = try SecretFile.read(path: path, variable: "", environment: [:])
            else {
                io.printError("lifecycle report lookup: \(path): no pseudonym key yet; no report was generated with it")
                return ExitStatus.failure
            }
            let pseudonym = KeyedSubjectPseudonymizer(key: key).pseudonym(app: app, subject: subject)
            if json {
                let document: JSONValue = [
                    "app": .string(app), "pseudonym": .string(pseudonym),
                    "pseudonymKeyId": .string(ReportKeys.keyID(key)),
                ]
                io.print(document.serialized(pretty: true))
            } else {
                io.print(pseudonym)
            }
            return ExitStatus.success
        default:
            throw UsageError("unknown action '\(action)': use generate, verify, requests or lookup")
        }
    }

    static func period(fromText: String?, toText: String?, now: Instant) throws(UsageError) -> ReportPeriod {
        switch (fromText, toText) {
        case (nil, nil):
            return ReportPeriod.recent(asOf: now)
        case (let from?, let to?):
            guard let start = ISO8601Format.parse(from) else {
                throw UsageError("--from \(from) is not \(ISO8601Format.expectedForm)")
            }
            guard let end = ISO8601Format.parse(to) else {
                throw UsageError("--to \(to) is not \(ISO8601Format.expectedForm)")
            }
            guard start < end else { throw UsageError("--from must be before --to") }
            return ReportPeriod(from: start, to: end)
        default:
            throw UsageError("give both --from and --to, or neither")
        }
    }

    /// `--year YYYY` as the half-open UTC year `[YYYY-01-01, YYYY+1-01-01)`.
    static func year(_ text: String) throws(UsageError) -> ReportPeriod {
        guard text.count == 4, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let value = Int(text),
            value >= 1970, let start = ISO8601Format.parse("\(text)-01-01"),
            let end = ISO8601Format.parse("\(value + 1)-01-01")
        else { throw UsageError("--year \(text) is not a year such as 2026") }
        return ReportPeriod(from: start, to: end)
    }

    private static func requests(
        configFile: String, app: String, year: String?, fromText: String?, toText: String?, json: Bool, io: CommandIO
    ) async throws -> Int32 {
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        guard configuration.apps.contains(where: { $0.id == app }) else {
            io.printError("lifecycle report requests: unknown app '\(app)'")
            return ExitStatus.negative
        }
        let context = try await ServiceContext.open(configuration: configuration, io: io)
        let now = context.clock.now()
        let dataset: ReportDataset
        do {
            let period: ReportPeriod
            if let year {
                guard fromText == nil, toText == nil else { throw UsageError("give --year or --from/--to, not both") }
                period = try Self.year(year)
            } else if fromText == nil, toText == nil {
                period = try Self.year(String(ReportPeriod.dayName(now).prefix(4)))
            } else {
                period = try Self.period(fromText: fromText, toText: toText, now: now)
            }
            dataset = try await ReportGenerator.dataset(
                configuration: configuration, store: context.store, app: app, period: period, at: now)
        } catch {
            await context.close()
            throw error
        }
        await context.close()
        // Both throw, and nothing is printed, when a row the spool held could not be read back.
        if json {
            io.print(try ReportLedgerRenderer.document(dataset).serialized(pretty: true))
            return ExitStatus.success
        }
        let totals = try ReportLedgerRenderer.totals(of: dataset)
        let running = dataset.coveredUntil < dataset.period.to ? ", still running" : ""
        let median = totals.medianDaysToRespond.map { ReportNumbers.days($0) } ?? "n/a"
        io.print(
            "\(app) \(dataset.period.from.iso8601) to \(dataset.coveredUntil.iso8601)\(running): "
                + "\(totals.received) requests received, \(totals.compliedInWhole) complied with in whole, "
                + "\(totals.compliedInPart) in part, \(totals.denied) denied, \(totals.withdrawn) withdrawn, "
                + "\(totals.open) open; median \(median) days to respond (n = \(totals.respondedSample))")
        return ExitStatus.success
    }

    private static func generate(
        configFile: String, app: String?, fromText: String?, toText: String?, json: Bool, io: CommandIO
    ) async throws -> Int32 {
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let apps = configuration.apps.map(\.id).filter { app == nil || $0 == app }
        guard !apps.isEmpty else {
            io.printError("lifecycle report generate: unknown app '\(app ?? "")'")
            return ExitStatus.negative
        }
        let context = try await ServiceContext.open(configuration: configuration, io: io)
        let now = context.clock.now()
        let period = try period(fromText: fromText, toText: toText, now: now)
        var documents: [JSONValue] = []
        do {
            let generator = try ReportGenerator(configuration: configuration, store: context.store)
            for app in apps {
                let written = try await generator.generate(app: app, period: period, at: now)
                let total = written.dataset.summary.total
                if json {
                    documents.append([
                        "app": .string(app), "files": .array(written.files.map { .string($0) }),
                        "manifestLine": .integer(Int64(written.manifestLine.sequence)),
                        "logTreeSize": .integer(Int64(clamping: written.log.treeSize)),
                        "loggedLines": .array(written.log.appendedLines.map { .integer(Int64($0)) }),
                        "received": .integer(Int64(total.received)), "overdue": .integer(Int64(total.overdue)),
                    ])
                } else {
                    io.print(
                        "\(app): \(total.received) requests, \(total.completed) completed, \(total.pending) pending, "
                            + "\(total.overdue) overdue; manifest line \(written.manifestLine.sequence); log size "
                            + "\(written.log.treeSize), \(written.log.receiptsWritten) receipts written")
                    for file in written.files { io.print("  \(file)") }
                }
            }
        } catch {
            await context.close()
            throw error
        }
        await context.close()
        if json { io.print(JSONValue.array(documents).serialized(pretty: true)) }
        return ExitStatus.success
    }

    private static func verify(
        configFile: String, directory: String?, publicKeyFile: String?, checkpointFile: String?, json: Bool,
        io: CommandIO
    ) throws -> Int32 {
        var directory = directory
        var publicKeyFile = publicKeyFile
        if directory == nil || publicKeyFile == nil {
            let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
            directory = directory ?? configuration.reports.directory
            publicKeyFile =
                publicKeyFile ?? ReportKeys.publicKeyPath(forSigningKey: configuration.reports.signingKeyFile)
        }
        guard let directory, let publicKeyFile else { throw UsageError("give DIR and --public-key") }
        var kept: (path: String, bytes: [UInt8])?
        if let checkpointFile {
            guard let bytes = FileManager.default.contents(atPath: checkpointFile) else {
                throw UsageError("--checkpoint \(checkpointFile): cannot read the file")
            }
            kept = (checkpointFile, Array(bytes))
        }
        let outcome = try ReportVerifier.verify(
            directory: directory, publicKey: try ReportKeys.publicKey(path: publicKeyFile), keptCheckpoint: kept)
        if json {
            let document: JSONValue = [
                "verified": .bool(outcome.broken == nil),
                "broken": outcome.broken.map { .string(String(describing: $0)) } ?? .null,
                "reports": .integer(Int64(outcome.verifiedReports)),
                "manifests": .array(outcome.manifests.map { .string($0) }),
                "logs": .array(
                    outcome.logs.map {
                        [
                            "directory": .string($0.directory), "treeSize": .integer(Int64(clamping: $0.treeSize)),
                            "receipts": .integer(Int64($0.receipts)), "verifierKey": .string($0.verifierKey),
                            "keptCheckpointChecked": .bool($0.keptCheckpointChecked),
                        ]
                    }),
            ]
            io.print(document.serialized(pretty: true))
        }
        if let broken = outcome.broken {
            io.printError("lifecycle report verify: BROKEN \(broken)")
            return ExitStatus.negative
        }
        if !json {
            io.print("verified \(outcome.verifiedReports) reports in \(outcome.manifests.count) manifests")
            for manifest in outcome.manifests { io.print("  \(manifest)") }
            for log in outcome.logs {
                io.print(
                    "log \(log.directory): \(log.treeSize) leaves, \(log.receipts) receipts"
                        + (log.keptCheckpointChecked ? ", consistent with --checkpoint" : "")
                        + "; key \(log.verifierKey)")
            }
        }
        return ExitStatus.success
    }
}
