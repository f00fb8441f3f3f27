/// Tuning for ``SQLiteStore``. Every default is what `serve` uses; tests and `lifecycle bench` change them.
public struct SQLiteStoreConfiguration: Sendable, Hashable {
    /// How long a connection waits for a lock held by another process (a `lifecycle` command next to
    /// `serve`) before failing with ``StoreError/unavailable(_:)``. Default 5 000 ms.
    public var busyTimeoutMilliseconds: Int32
    /// The most write bodies one transaction commits together. Bounds how long the first writer of a batch
    /// waits for the others and how much one failed commit can fail. Default 256.
    public var maximumBatchSize: Int
    /// Read connections, each on its own thread, so reads run in parallel with each other and with the
    /// writer (WAL mode). Default 2, the core count this service is sized for.
    public var readerCount: Int
    /// How long one attempt of the truncating checkpoint after an erasure (``SQLiteStore/removeRemnants()``)
    /// waits for readers to leave the log. New writes wait while it does, so it is short. Default 100 ms.
    public var checkpointBusyMilliseconds: Int32
    /// Attempts of that checkpoint before it reports `complete: false` (tried again after the next erasure
    /// round). Default 20, 200 ms apart: a reader holding the log for 6 s still lets it through.
    public var checkpointAttempts: Int
    /// Write-ahead-log frames (pages) after which the checkpoint thread copies the log into the database file
    /// (``LogCheckpointer``), and again each time a quarter of it more has been written. Default 1 000, SQLite's
    /// own automatic checkpoint threshold.
    public var logCheckpointFrames: Int
    /// Frames after which the writer checkpoints inside its commit, as SQLite would, so the log stays bounded
    /// under a load that never pauses. Default 10 000 (about 40 MiB of 4 KiB pages).
    public var logLimitFrames: Int

    public init(
        busyTimeoutMilliseconds: Int32 = 5_000, maximumBatchSize: Int = 256, readerCount: Int = 2,
        checkpointBusyMilliseconds: Int32 = 100, checkpointAttempts: Int = 20, logCheckpointFrames: Int = 1_000,
        logLimitFrames: Int = 10_000
    ) {
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.maximumBatchSize = max(1, maximumBatchSize)
        self.readerCount = max(1, readerCount)
        self.checkpointBusyMilliseconds = max(0, checkpointBusyMilliseconds)
        self.checkpointAttempts = max(1, checkpointAttempts)
        self.logCheckpointFrames = max(1, logCheckpointFrames)
        self.logLimitFrames = max(1, logLimitFrames)
    }

    /// Pause between two checkpoint attempts, while writers go on.
    static let checkpointPauseMilliseconds: UInt32 = 200
}
