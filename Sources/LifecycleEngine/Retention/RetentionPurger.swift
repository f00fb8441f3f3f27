import LifecycleCore
import LifecycleStore

/// Purges what the `retention` section says has expired (``RetentionKind``): every kind in batches of
/// `retention.batchSize`, each batch its own short write transaction, then the purged bytes are taken out of
/// the store's files (``Store/removeRemnantsOfPurge()``). Counted in `lifecycle_retention_purged_total{kind}`.
/// Purging twice is harmless (the second finds nothing), so several instances need no coordination beyond the
/// lock that spares them the double work.
public struct RetentionPurger: Sendable {
    /// The lock under which one instance at a time purges (``Store/withExclusiveLock(named:_:)``).
    public static let lockName = "retention"

    let store: any Store
    let log: EventLog
    let metrics: RetentionMetrics

    public init(store: any Store, log: EventLog, metrics: MetricsRegistry) {
        self.store = store
        self.log = log
        self.metrics = RetentionMetrics(metrics)
    }

    /// Purges everything expired at `now` under `configuration`; returns the count per kind, or nil when
    /// another instance holds the lock (it is purging). Logs one `retention.purged` line with the counts.
    @discardableResult
    public func run(_ configuration: RetentionConfiguration, asOf now: Instant) async throws -> [RetentionKind: Int]? {
        let (store, batch) = (self.store, configuration.batchSize)
        return try await store.withExclusiveLock(named: Self.lockName) { () async throws -> [RetentionKind: Int] in
            var purged: [RetentionKind: Int] = [:]
            for kind in RetentionKind.allCases {
                let cutoff = configuration.periods.cutoff(kind, asOf: now)
                var total = 0
                while !Task.isCancelled {
                    let count = try await store.write { writer in
                        try writer.purgeExpired(kind, before: cutoff, limit: batch)
                    }
                    total += count
                    if count < batch { break }
                }
                purged[kind] = total
                metrics.purged.increment([("kind", kind.rawValue)], by: Double(total))
            }
            var removal: RemnantRemoval?
            if purged.values.contains(where: { $0 > 0 }) { removal = try await store.removeRemnantsOfPurge() }
            metrics.lastRun.set(to: Double(now.secondsSinceEpoch))
            log.info(
                "retention.purged",
                RetentionKind.allCases.map { ($0.rawValue, .integer(Int64(purged[$0] ?? 0))) }
                    + [("remnants", .string(removal?.description ?? "nothing purged"))])
            return purged
        }
    }
}

/// The purge's metrics: records purged by kind (a closed set), and when the last purge ran.
struct RetentionMetrics: Sendable {
    let purged: Counter
    let lastRun: Gauge

    init(_ metrics: MetricsRegistry) {
        purged = metrics.counter(
            "lifecycle_retention_purged_total", help: "Records purged because their retention period passed, by kind.")
        lastRun = metrics.gauge(
            "lifecycle_retention_last_run_timestamp_seconds", help: "Unix time of this instance's last retention purge."
        )
        for kind in RetentionKind.allCases { purged.increment([("kind", kind.rawValue)], by: 0) }
    }
}
