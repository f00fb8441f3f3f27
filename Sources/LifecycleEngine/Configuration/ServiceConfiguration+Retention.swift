import LifecycleCore

/// The `retention` section of `lifecycle.json`: how long the store keeps each ``RetentionKind``.
public struct RetentionConfiguration: Sendable, Equatable {
    /// Days per kind (defaults and floors: ``RetentionPeriods``).
    public var periods = RetentionPeriods()
    /// Records one purge transaction takes at most (default 1,000): short transactions, so ingestion waits for
    /// none of them for long.
    public var batchSize: Int = 1000
}

extension ServiceConfiguration {
    /// Every kind's period in `1...36500` days and at least its floor (``RetentionPeriods/minimum(_:)``); the
    /// heartbeats also outlast the reconciler's look-back, or a run would find a gap that is only purged rows.
    static func parseRetention(
        _ root: inout ConfigurationReader, reconcile: ReconcileConfiguration
    ) throws(ConfigurationError) -> RetentionConfiguration {
        var reader = try root.objectOrEmpty("retention")
        try reader.allow(RetentionKind.allCases.map(\.configurationKey) + ["batchSize"])
        var days: [RetentionKind: Int] = [:]
        for kind in RetentionKind.allCases {
            let floor = RetentionPeriods.minimum(kind)
            let fallback = Int64(RetentionPeriods.defaultDays[kind] ?? floor.days)
            let value = try reader.integer(
                kind.configurationKey, default: fallback, range: 1...36_500, fix: "days (default \(fallback))")
            guard value >= floor.days else {
                throw reader.error(
                    kind.configurationKey, "\(value) days is shorter than \(floor.days)",
                    fix: "keep at least \(floor.days) days: \(floor.reason)")
            }
            days[kind] = Int(value)
        }
        let heartbeatDays = days[.heartbeats] ?? 0
        guard heartbeatDays * 24 > reconcile.lookbackHours + 24 else {
            throw reader.error(
                RetentionKind.heartbeats.configurationKey,
                "\(heartbeatDays) days does not cover reconcile.lookbackHours (\(reconcile.lookbackHours))",
                fix: "keep heartbeats longer than the reconciler looks back, plus a day")
        }
        var configuration = RetentionConfiguration()
        configuration.periods = RetentionPeriods(days: days)
        configuration.batchSize = Int(
            try reader.integer("batchSize", default: 1000, range: 1...100_000, fix: "records per purge transaction"))
        try reader.finish()
        return configuration
    }
}
