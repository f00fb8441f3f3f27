import Glibc
import LifecycleSQL
import Synchronization

/// One `read` or `write` call waiting for a pooled connection.
enum PostgresJob: Sendable {
    case write(QueuedWrite)
    case read(QueuedRead)
}

/// The connections of a ``PostgresStore``, each owned by its own thread, sharing one queue of calls.
///
/// Group commit is a SQLite optimisation (one writer, one fsync for many bodies); PostgreSQL takes
/// concurrent writers itself, so here each `write` is its own transaction on whichever connection is free:
/// a body that throws rolls back only itself, and the call returns after its own COMMIT.
///
/// A connection found broken (server restart, network failure) is replaced before its next transaction, with
/// exponential backoff between attempts (``PostgresStoreConfiguration/reconnectAttempts``); only the call
/// that was running when it broke fails.
final class PostgresPool: Sendable {
    private let queue = WorkQueue<PostgresJob>()
    private let finished: CompletionLatch
    private let waitingWrites = Atomic<Int>(0)
    private let counters: StoreCounters

    init(
        connections: [PostgresConnection], configuration: PostgresStoreConfiguration, counters: StoreCounters
    ) throws(StoreError) {
        self.counters = counters
        finished = CompletionLatch(count: connections.count)
        let queue = self.queue
        let finished = self.finished
        for (index, connection) in connections.enumerated() {
            do {
                try OwnerThread.start(name: "lc-pg-\(index)") {
                    let access = PostgresAccess(connection: connection)
                    while let jobs = queue.take(upTo: 1) {
                        for job in jobs {
                            switch job {
                            case .write(let write):
                                self.waitingWrites.subtract(1, ordering: .relaxed)
                                Self.run(write, connection: connection, access: access, configuration, counters)
                            case .read(let read):
                                Self.run(read, connection: connection, access: access, configuration)
                            }
                        }
                    }
                    connection.close()
                    finished.arrive()
                }
            } catch {
                // Threads already started stop when the queue closes; the rest never start.
                queue.close()
                for connection in connections[index...] { connection.close() }
                throw StoreError(error)
            }
        }
    }

    /// Queues a call; false once closed.
    func enqueue(_ job: PostgresJob) -> Bool {
        if case .write = job { waitingWrites.add(1, ordering: .relaxed) }
        let accepted = queue.enqueue(job)
        if !accepted, case .write = job { waitingWrites.subtract(1, ordering: .relaxed) }
        return accepted
    }

    var queuedWrites: Int { max(0, waitingWrites.load(ordering: .relaxed)) }

    /// Lets queued calls finish, then closes the connections.
    func close() async {
        queue.close()
        await finished.wait()
    }

    /// One write transaction. COMMIT of a transaction that had a failed statement (one the body caught and
    /// ignored) answers `ROLLBACK` instead of failing; that is a failed commit too.
    private static func run(
        _ write: QueuedWrite, connection: PostgresConnection, access: PostgresAccess,
        _ configuration: PostgresStoreConfiguration, _ counters: StoreCounters
    ) {
        do {
            try begin("BEGIN", connection: connection, configuration)
        } catch {
            counters.recordFailedCommit()
            write.finish(StoreError(error))
            return
        }
        guard write.run(access) else {
            _ = try? connection.execute("ROLLBACK")
            counters.recordRollback()
            write.finish(nil)
            return
        }
        do {
            let tag = try connection.execute("COMMIT")
            guard tag == "COMMIT" else {
                counters.recordFailedCommit()
                write.finish(.unavailable("a statement of the transaction failed, so PostgreSQL rolled it back"))
                return
            }
            counters.recordCommit(committedWrites: 1)
            write.finish(nil)
        } catch {
            _ = try? connection.execute("ROLLBACK")
            counters.recordFailedCommit()
            write.finish(StoreError(error))
        }
    }

    /// One read transaction: REPEATABLE READ gives every query of the body the same snapshot
    /// (https://www.postgresql.org/docs/15/transaction-iso.html §13.2.2), READ ONLY refuses writes even
    /// through a cast of the reader.
    private static func run(
        _ read: QueuedRead, connection: PostgresConnection, access: PostgresAccess,
        _ configuration: PostgresStoreConfiguration
    ) {
        do {
            try begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", connection: connection, configuration)
        } catch {
            read.fail(StoreError(error))
            return
        }
        read.run(access)
        _ = try? connection.execute("ROLLBACK")
    }

    /// Starts a transaction, first replacing a connection known to be broken, and once more when BEGIN
    /// itself finds it broken (nothing has run yet, so starting again is safe).
    private static func begin(
        _ sql: String, connection: PostgresConnection, _ configuration: PostgresStoreConfiguration
    ) throws(PostgresError) {
        if connection.isBroken { try reconnect(connection, configuration) }
        do {
            try connection.execute(sql)
        } catch {
            guard connection.isBroken else { throw error }
            try reconnect(connection, configuration)
            try connection.execute(sql)
        }
    }

    /// Blocks this owner thread (never a Swift concurrency thread) between attempts.
    private static func reconnect(
        _ connection: PostgresConnection, _ configuration: PostgresStoreConfiguration
    ) throws(PostgresError) {
        var delay = configuration.reconnectInitialDelayMilliseconds
        var attempt = 1
        while true {
            do {
                try connection.reconnect()
                return
            } catch {
                guard attempt < configuration.reconnectAttempts else { throw error }
            }
            usleep(UInt32(clamping: delay * 1_000))
            delay = min(delay * 2, configuration.reconnectMaximumDelayMilliseconds)
            attempt += 1
        }
    }
}
