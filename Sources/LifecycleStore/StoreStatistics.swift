/// Counters a store keeps about its own writes, cheap to read at any time: for `/metrics`, for
/// `lifecycle bench`, and for tests that check group commit really shares commits between writers.
public struct StoreStatistics: Sendable, Hashable {
    /// Transactions committed.
    public var commits: Int
    /// Write bodies that returned normally and whose transaction committed.
    public var committedWrites: Int
    /// Write bodies that threw and were rolled back on their own (their savepoint), the rest of the batch kept.
    public var rolledBackWrites: Int
    /// Transactions that could not begin or commit; every write in them failed.
    public var failedCommits: Int
    /// The most write bodies ever committed by one transaction.
    public var largestBatch: Int
    /// Writes waiting for the writer at the moment of reading.
    public var queuedWrites: Int

    public init(
        commits: Int = 0, committedWrites: Int = 0, rolledBackWrites: Int = 0, failedCommits: Int = 0,
        largestBatch: Int = 0, queuedWrites: Int = 0
    ) {
        self.commits = commits
        self.committedWrites = committedWrites
        self.rolledBackWrites = rolledBackWrites
        self.failedCommits = failedCommits
        self.largestBatch = largestBatch
        self.queuedWrites = queuedWrites
    }
}
