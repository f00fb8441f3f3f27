import Foundation
import LifecycleCore
import LifecycleCrypto
import LifecycleEngine
import LifecycleStore

/// collect → assemble → render and write, for one app and period: what `lifecycle report generate` (and,
/// later, `serve` after its scheduled reconcile) runs.
public struct ReportGenerator: Sendable {
    public var collector: ReportCollector
    public var assembler: ReportAssembler
    public var writer: ReportWriter

    public init(collector: ReportCollector, assembler: ReportAssembler, writer: ReportWriter) {
        self.collector = collector
        self.assembler = assembler
        self.writer = writer
    }

    /// Keys from the configured files (created on first use), report directory from the configuration; jobs
    /// and the last reconcile's findings from the store unless given.
    public init(
        configuration: ServiceConfiguration, store: any Store, jobs: (any ErasureJobSource)? = nil,
        findings: (any FindingSource)? = nil
    ) throws {
        self.init(
            collector: ReportCollector(
                store: store, jobs: jobs ?? StoreErasureJobSource(store: store),
                findings: findings ?? StoreFindingSource(store: store)),
            assembler: try Self.assembler(configuration: configuration),
            writer: ReportWriter(
                directory: configuration.reports.directory,
                signingKey: try ReportKeys.signingKey(path: configuration.reports.signingKeyFile)))
    }

    /// The assembler of the configured reports: their pseudonym key (created on first use), the backup
    /// retention and rotation they state bounds from.
    public static func assembler(configuration: ServiceConfiguration) throws -> ReportAssembler {
        let reports = configuration.reports
        let pseudonyms = try ReportKeys.pseudonymizer(path: reports.pseudonymKeyFile)
        let operationsKeyID =
            reports.pseudonymKeyFile == configuration.pseudonymKeyFile
            ? pseudonyms.keyID : try ReportKeys.pseudonymizer(path: configuration.pseudonymKeyFile).keyID
        return ReportAssembler(
            pseudonymizer: pseudonyms.pseudonymizer, pseudonymKeyID: pseudonyms.keyID,
            retention: ReportRetention(
                storeDays: configuration.erasure.backupRetentionDays,
                targetDays: Dictionary(
                    uniqueKeysWithValues: configuration.apps.map { ($0.id, $0.erasure?.backupRetentionDays ?? [:]) }),
                rotateEveryDays: configuration.keys.rotateEveryDays),
            operationsPseudonymKeyID: operationsKeyID)
    }

    /// What a report of `app` and `period` would say at `now`, without writing, signing or logging anything:
    /// the request ledger (`GET /v1/requests`, `lifecycle report requests`) reads the same dataset the report
    /// files are rendered from. Its rows wait in a spool under `reports.directory`, or in the temporary
    /// directory when that cannot be written (a reader needs no report directory of its own).
    public static func dataset(
        configuration: ServiceConfiguration, store: any Store, app: String, period: ReportPeriod, at now: Instant
    ) async throws -> ReportDataset {
        let collector = ReportCollector(
            store: store, jobs: StoreErasureJobSource(store: store), findings: StoreFindingSource(store: store))
        return try await dataset(
            collector: collector, assembler: assembler(configuration: configuration), app: app, period: period, at: now,
            spoolDirectories: [configuration.reports.directory, NSTemporaryDirectory()])
    }

    public func generate(app: String, period: ReportPeriod, at now: Instant) async throws -> ReportWriter.Written {
        let clock = ContinuousClock()
        let started = clock.now
        let dataset = try await Self.dataset(
            collector: collector, assembler: assembler, app: app, period: period, at: now,
            spoolDirectories: [writer.directory])
        let collected = clock.now
        var written = try writer.write(dataset)
        written.collectSeconds = (collected - started).inSeconds
        return written
    }

    /// Collects and assembles page by page: each page's requests are assembled as it is read, their rows
    /// appended to a ``ReportRowSpool`` in the first of `spoolDirectories` it can be made in, and their jobs
    /// let go, so a large month's jobs, steps and rows are never all in memory; the summary is counted from a
    /// few values per request. The same dataset as ``ReportAssembler/assemble(_:)`` over
    /// ``ReportCollector/collect(app:period:generatedAt:)``.
    public static func dataset(
        collector: ReportCollector, assembler: ReportAssembler, app: String, period: ReportPeriod, at now: Instant,
        spoolDirectories: [String]
    ) async throws -> ReportDataset {
        let spool = try ReportRowSpool.Builder(directories: spoolDirectories)
        let (inputs, facts) = try await collector.collect(app: app, period: period, generatedAt: now) { page in
            // A stop (serve's task cancelled) ends a large month's collect between pages.
            try Task.checkCancellation()
            return try assembler.requests(page).map { request in
                try spool.append(request.row)
                return request.facts
            }
        }
        return assembler.dataset(facts: facts, rows: ReportRows(spool: try spool.finish()), inputs: inputs)
    }
}
