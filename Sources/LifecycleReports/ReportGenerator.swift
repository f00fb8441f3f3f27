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
        let reports = configuration.reports
        let pseudonyms = try ReportKeys.pseudonymizer(path: reports.pseudonymKeyFile)
        self.init(
            collector: ReportCollector(
                store: store, jobs: jobs ?? StoreErasureJobSource(store: store),
                findings: findings ?? StoreFindingSource(store: store)),
            assembler: ReportAssembler(
                pseudonymizer: pseudonyms.pseudonymizer, pseudonymKeyID: pseudonyms.keyID,
                retention: ReportRetention(
                    storeDays: configuration.erasure.backupRetentionDays,
                    targetDays: Dictionary(
                        uniqueKeysWithValues: configuration.apps.map { ($0.id, $0.erasure?.backupRetentionDays ?? [:]) }
                    ),
                    rotateEveryDays: configuration.keys.rotateEveryDays)),
            writer: ReportWriter(
                directory: reports.directory, signingKey: try ReportKeys.signingKey(path: reports.signingKeyFile)))
    }

    public func generate(app: String, period: ReportPeriod, at now: Instant) async throws -> ReportWriter.Written {
        let inputs = try await collector.collect(app: app, period: period, generatedAt: now)
        return try writer.write(assembler.assemble(inputs))
    }
}
