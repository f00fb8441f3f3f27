/// Where an app's own records come from for the nightly comparison (DESIGN.md §8).
public enum RecordSource: Sendable, Equatable {
    /// A query against the app's SQLite file returning a `sub` column and optionally `status` and `sessions`.
    case sqlite(path: String, query: String)
    /// The same query against the app's PostgreSQL database at `url`, read through a cursor.
    case postgres(url: String, query: String)
    /// A JSON Lines export: `{"sub": …, "status": …, "sessions": …}` per line.
    case jsonLines(path: String)
    /// A CSV export with a header row naming `sub` and optionally `status` and `sessions`.
    case csv(path: String)

    public var description: String {
        switch self {
        case .sqlite(let path, _): "sqlite:\(path)"
        case .postgres(let url, _):
            StorageConfiguration(url: url, busyTimeoutMilliseconds: 0, maxBatch: 1).redactedURL
        case .jsonLines(let path): "jsonl:\(path)"
        case .csv(let path): "csv:\(path)"
        }
    }
}

/// The `reconcile` section of `lifecycle.json`.
public struct ReconcileConfiguration: Sendable, Equatable {
    /// Local time of day `HH:MM` at which `serve` runs the reconciler (and then the day's report); nil runs it
    /// only from cron (`lifecycle reconcile`).
    public var dailyAt: (hour: Int, minute: Int)?
    /// IANA zone `dailyAt` is read in.
    public var timeZone: String = "UTC"
    /// A silence longer than this between heartbeats of every instance is a `notification-gap`.
    public var gapThresholdSeconds: Int = 300
    /// How often `serve` records that it is up and receiving (its heartbeat); must be shorter than
    /// ``gapThresholdSeconds``, or a healthy instance would look like a gap.
    public var heartbeatSeconds: Int = 60
    /// How far back each run looks for gaps.
    public var lookbackHours: Int = 48
    /// The run lock's lease; renewed while the run makes progress.
    public var leaseSeconds: Int = 300
    /// App `status` values that mean "kept only to stay deleted" (CCPA §7022(e)): never retained data.
    public var tombstoneStatuses: [String] = ["deleted"]

    public static func == (lhs: ReconcileConfiguration, rhs: ReconcileConfiguration) -> Bool {
        lhs.dailyAt?.hour == rhs.dailyAt?.hour && lhs.dailyAt?.minute == rhs.dailyAt?.minute
            && lhs.timeZone == rhs.timeZone && lhs.gapThresholdSeconds == rhs.gapThresholdSeconds
            && lhs.heartbeatSeconds == rhs.heartbeatSeconds
            && lhs.lookbackHours == rhs.lookbackHours && lhs.leaseSeconds == rhs.leaseSeconds
            && lhs.tombstoneStatuses == rhs.tombstoneStatuses
    }
}

extension ReconcileConfiguration {
    /// The documented defaults (a `reconcile` section left out).
    package static let defaults = ReconcileConfiguration()
}
