import Synchronization

/// The live counters behind ``StoreStatistics``. Atomics, so reading them never waits for the writer.
final class StoreCounters: Sendable {
    private let commits = Atomic<Int>(0)
    private let committedWrites = Atomic<Int>(0)
    private let rolledBackWrites = Atomic<Int>(0)
    private let failedCommits = Atomic<Int>(0)
    private let largestBatch = Atomic<Int>(0)

    func recordCommit(committedWrites count: Int) {
        commits.add(1, ordering: .relaxed)
        committedWrites.add(count, ordering: .relaxed)
        var current = largestBatch.load(ordering: .relaxed)
        while count > current {
            let (exchanged, original) = largestBatch.compareExchange(
                expected: current, desired: count, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
    }

    func recordRollback() {
        rolledBackWrites.add(1, ordering: .relaxed)
    }

    func recordFailedCommit() {
        failedCommits.add(1, ordering: .relaxed)
    }

    func snapshot(queuedWrites: Int) -> StoreStatistics {
        StoreStatistics(
            commits: commits.load(ordering: .relaxed),
            committedWrites: committedWrites.load(ordering: .relaxed),
            rolledBackWrites: rolledBackWrites.load(ordering: .relaxed),
            failedCommits: failedCommits.load(ordering: .relaxed),
            largestBatch: largestBatch.load(ordering: .relaxed),
            queuedWrites: queuedWrites)
    }
}
