import Dispatch
import LifecycleSQL
import Synchronization

/// Copies the write-ahead log into the database file on a connection and thread of its own, so the writer
/// thread does not.
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that takes the log past 1,000 pages: the writer
/// reads those pages back from the log, writes them into the database file and flushes both, while every
/// caller waits. Here the writer's commit hook (``SQLiteConnection/onLogCommit(_:)``) only wakes this thread,
/// whose passive checkpoint copies what readers allow while the writer goes on committing. A passive
/// checkpoint that runs beside new commits never finishes the log (each finds new frames behind it), and only
/// a finished log starts again from its beginning; so past ``SQLiteStoreConfiguration/logLimitFrames`` the
/// writer's hook checkpoints by itself as SQLite would, which then only has the frames this thread has not yet
/// copied. Past the threshold the thread is woken once per ``wakeStep`` new frames, not at every commit: each
/// passive checkpoint flushes the database file, and one per commit had the disk flushing the database file
/// about as often as the log (`bench ingest`: 4,360 against 4,828 req/s, medians of 3, p99 the same).
final class LogCheckpointer: Sendable {
    /// Log frames after which this thread is woken (``SQLiteStoreConfiguration/logCheckpointFrames``).
    private let wakeFrames: Int
    /// Log frames after which the writer checkpoints in its commit (``SQLiteStoreConfiguration/logLimitFrames``).
    private let writerCheckpointFrames: Int
    private let requests = WorkQueue<Void>()
    private let requested = Atomic<Bool>(false)
    /// The log's size in frames when this thread was last woken; 0 after the log started again. Read and written
    /// by the writer's hook only.
    private let wokenAt = Atomic<Int>(0)
    /// New frames between two wakes past the threshold: a quarter of it.
    private var wakeStep: Int { max(1, wakeFrames / 4) }
    /// Times the thread was woken, for tests.
    let wakes = Atomic<Int>(0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts the thread on a connection of its own to `path`; nil when either cannot be had, and the writer
    /// then keeps SQLite's automatic checkpoint.
    static func start(path: String, configuration: SQLiteStoreConfiguration) -> LogCheckpointer? {
        guard
            let connection = try? SQLiteConnection(
                path: path, role: .maintenance, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        else { return nil }
        let checkpointer = LogCheckpointer(
            wakeFrames: configuration.logCheckpointFrames, writerCheckpointFrames: configuration.logLimitFrames)
        do {
            try OwnerThread.start(name: "lc-db-checkpnt") { [checkpointer] in
                checkpointer.run(connection)
            }
        } catch {
            connection.close()
            return nil
        }
        return checkpointer
    }

    private init(wakeFrames: Int, writerCheckpointFrames: Int) {
        self.wakeFrames = wakeFrames
        self.writerCheckpointFrames = writerCheckpointFrames
    }

    /// Installs the writer's commit hook. Runs on the writer thread before its first write.
    func attach(to writer: SQLiteConnection) {
        writer.onLogCommit { [self] commit in
            if commit.frames < wokenAt.load(ordering: .relaxed) { wokenAt.store(0, ordering: .relaxed) }
            if commit.frames >= writerCheckpointFrames {
                commit.checkpointPassive()
            } else if commit.frames >= wakeFrames, commit.frames - wokenAt.load(ordering: .relaxed) >= wakeStep,
                !requested.exchange(true, ordering: .acquiringAndReleasing)
            {
                wokenAt.store(commit.frames, ordering: .relaxed)
                wakes.add(1, ordering: .relaxed)
                _ = requests.enqueue(())
            }
        }
    }

    /// Stops the thread after the checkpoint in hand and closes its connection; blocks until it has.
    func closeAndWait() {
        requests.close()
        stopped.wait()
    }

    private func run(_ connection: SQLiteConnection) {
        while let wakes = requests.take(upTo: .max) {
            guard !wakes.isEmpty else { continue }
            requested.store(false, ordering: .releasing)
            // Busy (a TRUNCATE checkpoint after an erasure holds the checkpoint lock) or failed: the next
            // commit past the threshold wakes this thread again, and the writer's own checkpoint is the bound.
            _ = try? connection.queryInt64("PRAGMA wal_checkpoint(PASSIVE)")
        }
        connection.close()
        stopped.signal()
    }
}
