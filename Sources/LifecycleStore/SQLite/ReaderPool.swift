import LifecycleSQL

/// Read connections, each owned by its own thread, sharing one queue of read calls. In WAL mode readers see
/// the last committed state and never wait for the writer (https://www.sqlite.org/wal.html §2.2).
final class ReaderPool: Sendable {
    private let queue = WorkQueue<QueuedRead>()
    private let finished: CompletionLatch

    init(connections: [SQLiteConnection]) throws(StoreError) {
        finished = CompletionLatch(count: connections.count)
        let queue = self.queue
        let finished = self.finished
        for (index, connection) in connections.enumerated() {
            do {
                try OwnerThread.start(name: "lc-db-reader-\(index)") {
                    let access = SQLiteAccess(connection: connection)
                    while let reads = queue.take(upTo: 1) {
                        for read in reads { Self.run(read, connection: connection, access: access) }
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

    func enqueue(_ read: QueuedRead) -> Bool {
        queue.enqueue(read)
    }

    /// Closes the queue without waiting: the threads close their connections as they stop.
    func stop() {
        queue.close()
    }

    func close() async {
        queue.close()
        await finished.wait()
    }

    /// One read transaction: every query of the body sees the same snapshot.
    private static func run(_ read: QueuedRead, connection: SQLiteConnection, access: SQLiteAccess) {
        do {
            try connection.execute("BEGIN")
        } catch {
            read.fail(StoreError(error))
            return
        }
        read.run(access)
        try? connection.execute("COMMIT")
    }
}
