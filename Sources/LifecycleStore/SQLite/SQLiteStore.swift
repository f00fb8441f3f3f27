import Dispatch

/// The SQLite implementation of ``Store``: one file in WAL mode, one writer thread with group commit
/// (``GroupCommitWriter``), and a small pool of reader threads (``ReaderPool``).
///
/// Opening creates the file if needed and applies every missing migration. Call ``close()`` before
/// dropping the store: its threads hold the connections until then.
public final class SQLiteStore: Store {
    /// The database file.
    public let path: String
    public let configuration: SQLiteStoreConfiguration
    private let writer: GroupCommitWriter
    private let readers: ReaderPool
    private let counters = StoreCounters()

    /// The schema version this build creates and understands: the number of migration steps it knows.
    public static var schemaVersion: Int { SQLiteSchema.migrations.count }

    /// Opens (creating if needed) and migrates the database at `path`. Blocks the calling thread on file
    /// I/O; from async code prefer ``open(path:configuration:)``.
    ///
    /// - Throws: ``StoreError/unavailable(_:)`` naming the path when the file cannot be opened or written;
    ///   ``StoreError/schemaTooNew(found:supported:)`` when a newer build migrated it.
    public convenience init(path: String, configuration: SQLiteStoreConfiguration = .init()) throws(StoreError) {
        try self.init(path: path, configuration: configuration, migrator: Migrator())
    }

    init(path: String, configuration: SQLiteStoreConfiguration, migrator: Migrator) throws(StoreError) {
        self.path = path
        self.configuration = configuration
        let writerConnection: SQLiteConnection
        var readerConnections: [SQLiteConnection] = []
        do {
            writerConnection = try SQLiteConnection(
                path: path, role: .writer, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        } catch {
            throw StoreError(error)
        }
        do {
            try migrator.migrate(writerConnection)
            do {
                for _ in 0..<configuration.readerCount {
                    readerConnections.append(
                        try SQLiteConnection(
                            path: path, role: .reader, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds))
                }
            } catch {
                throw StoreError(error)
            }
            readers = try ReaderPool(connections: readerConnections)
        } catch {
            for connection in readerConnections { connection.close() }
            writerConnection.close()
            throw StoreError(converting: error)
        }
        do {
            writer = try GroupCommitWriter(
                connection: writerConnection, maximumBatchSize: configuration.maximumBatchSize, counters: counters)
        } catch {
            readers.stop()
            writerConnection.close()
            throw error
        }
    }

    /// Opens and migrates the database at `path` without blocking a Swift concurrency thread.
    public static func open(
        path: String, configuration: SQLiteStoreConfiguration = .init()
    ) async throws(StoreError) -> SQLiteStore {
        try await open(path: path, configuration: configuration, migrator: Migrator())
    }

    static func open(
        path: String, configuration: SQLiteStoreConfiguration, migrator: Migrator
    ) async throws(StoreError) -> SQLiteStore {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<SQLiteStore, StoreError>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(
                    with: .success(
                        Result { () throws(StoreError) -> SQLiteStore in
                            try SQLiteStore(path: path, configuration: configuration, migrator: migrator)
                        }))
            }
        }
        return try result.get()
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreWriter) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            if !writer.enqueue(QueuedWrite(body: body, continuation: continuation)) {
                continuation.resume(throwing: StoreError.closed)
            }
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            if !readers.enqueue(QueuedRead(body: body, continuation: continuation)) {
                continuation.resume(throwing: StoreError.closed)
            }
        }
    }

    /// Closes the readers first, so the writer's connection is the last one and checkpoints the log into the
    /// database file as it closes.
    public func close() async {
        await readers.close()
        await writer.close()
    }

    public var statistics: StoreStatistics {
        counters.snapshot(queuedWrites: writer.queuedWrites)
    }
}
