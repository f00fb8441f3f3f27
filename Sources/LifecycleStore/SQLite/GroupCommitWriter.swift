import LifecycleSQL

/// The single writer: one connection, one thread, and group commit.
///
/// Concurrent `write` calls queue up. The thread takes everything queued (up to
/// ``SQLiteStoreConfiguration/maximumBatchSize``), opens one `BEGIN IMMEDIATE` transaction, runs each body
/// inside its own `SAVEPOINT` (a body that throws is rolled back to it and gets its own error), and commits
/// once. A write alone in its batch runs without a savepoint (``commitAlone(_:connection:access:counters:)``). With `synchronous=FULL` in WAL mode the commit is one fsync of the log, so N writers that arrive
/// while a commit is in flight share the next fsync instead of paying N. If the commit fails, every caller of
/// the batch gets the error: nothing of theirs was stored.
final class GroupCommitWriter: Sendable {
    private let queue = WorkQueue<QueuedWrite>()
    private let finished = CompletionLatch(count: 1)
    private let counters: StoreCounters

    /// - Parameter checkpointer: copies the log into the database file on its own thread
    ///   (``LogCheckpointer``); without one, SQLite's automatic checkpoint runs inside this thread's commits.
    init(
        connection: SQLiteConnection, maximumBatchSize: Int, checkpointer: LogCheckpointer?, counters: StoreCounters
    ) throws(StoreError) {
        self.counters = counters
        let queue = self.queue
        let finished = self.finished
        do {
            try OwnerThread.start(name: "lc-db-writer") {
                checkpointer?.attach(to: connection)
                let access = SQLiteAccess(connection: connection)
                while let batch = queue.take(upTo: maximumBatchSize) {
                    Self.commit(batch, connection: connection, access: access, counters: counters)
                }
                checkpointer?.closeAndWait()
                connection.close()
                finished.arrive()
            }
        } catch {
            checkpointer?.closeAndWait()
            throw StoreError(error)
        }
    }

    /// Queues a write; false once closed.
    func enqueue(_ write: QueuedWrite) -> Bool {
        queue.enqueue(write)
    }

    var queuedWrites: Int { queue.count }

    /// Lets queued writes finish, then closes the connection.
    func close() async {
        queue.close()
        await finished.wait()
    }

    private static let savepoint = "SAVEPOINT group_commit_write"
    private static let releaseSavepoint = "RELEASE SAVEPOINT group_commit_write"
    private static let rollbackSavepoint = "ROLLBACK TO SAVEPOINT group_commit_write"

    /// Runs one batch. A transaction SQLite aborts on its own part-way (disk full, I/O error) fails the
    /// writes that ran in it; the writes not yet run start a fresh transaction.
    private static func commit(
        _ batch: [QueuedWrite], connection: SQLiteConnection, access: SQLiteAccess, counters: StoreCounters
    ) {
        if batch.count == 1 {
            commitAlone(batch[0], connection: connection, access: access, counters: counters)
            return
        }
        var pending = batch[...]
        while !pending.isEmpty {
            do {
                try connection.execute("BEGIN IMMEDIATE")
            } catch {
                counters.recordFailedCommit()
                for write in pending { write.finish(StoreError(error)) }
                return
            }
            var ran: [QueuedWrite] = []
            var succeeded = 0
            var abortedBy: SQLiteError?
            for write in pending {
                ran.append(write)
                do {
                    try connection.execute(savepoint)
                    if write.run(access) {
                        succeeded += 1
                        try connection.execute(releaseSavepoint)
                    } else {
                        counters.recordRollback()
                        try connection.execute(rollbackSavepoint)
                        try connection.execute(releaseSavepoint)
                    }
                } catch {
                    abortedBy = error
                    break
                }
                if connection.isAutocommit {
                    abortedBy = SQLiteError(code: 1, message: "the transaction was rolled back by SQLite")
                    break
                }
            }
            pending = pending.dropFirst(ran.count)
            if let abortedBy {
                rollback(connection)
                counters.recordFailedCommit()
                for write in ran { write.finish(StoreError(abortedBy)) }
                continue
            }
            do {
                try connection.execute("COMMIT")
                counters.recordCommit(committedWrites: succeeded)
                for write in ran { write.finish(nil) }
            } catch {
                rollback(connection)
                counters.recordFailedCommit()
                for write in ran { write.finish(StoreError(error)) }
            }
        }
    }

    /// A write alone in its batch owns the transaction, so a body that throws rolls the transaction back and
    /// no savepoint is needed. Without one SQLite keeps no statement journal across the write's statements:
    /// inside a savepoint every page the write changes is copied there and kept until the savepoint ends, and
    /// with `temp_store = MEMORY` each statement's end walks that journal's 1 KiB chunks from the start
    /// (`memjrnlTruncate`, https://sqlite.org/src/file/src/memjournal.c), so a write that changes tens of
    /// thousands of pages in one call spent most of its time in that walk, growing with the square of its size.
    private static func commitAlone(
        _ write: QueuedWrite, connection: SQLiteConnection, access: SQLiteAccess, counters: StoreCounters
    ) {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            counters.recordFailedCommit()
            write.finish(StoreError(error))
            return
        }
        guard write.run(access) else {
            counters.recordRollback()
            rollback(connection)
            write.finish(nil)
            return
        }
        guard !connection.isAutocommit else {
            counters.recordFailedCommit()
            write.finish(StoreError(SQLiteError(code: 1, message: "the transaction was rolled back by SQLite")))
            return
        }
        do {
            try connection.execute("COMMIT")
            counters.recordCommit(committedWrites: 1)
            write.finish(nil)
        } catch {
            rollback(connection)
            counters.recordFailedCommit()
            write.finish(StoreError(error))
        }
    }

    private static func rollback(_ connection: SQLiteConnection) {
        if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
    }
}
