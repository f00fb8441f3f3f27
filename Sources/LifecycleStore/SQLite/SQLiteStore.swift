import Dispatch
import Glibc
import LifecycleCore
import LifecycleSQL

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
                connection: writerConnection, maximumBatchSize: configuration.maximumBatchSize,
                checkpointer: LogCheckpointer.start(path: path, configuration: configuration),
                counters: counters)
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
        try await BlockingExecutor.shared.run { () throws(StoreError) -> SQLiteStore in
            try SQLiteStore(path: path, configuration: configuration, migrator: migrator)
        }
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

    /// `PRAGMA wal_checkpoint(TRUNCATE)` (https://www.sqlite.org/pragma.html#pragma_wal_checkpoint) on a
    /// connection of its own: every frame of the log is copied into the database file, where `secure_delete`
    /// has zeroed what erasure removed, and the log is truncated to zero bytes, so no older version of an
    /// erased page survives in `-wal` (the `-shm` index holds page numbers, not content). A reader in another
    /// process that keeps an old snapshot blocks it; each attempt waits only
    /// ``SQLiteStoreConfiguration/checkpointBusyMilliseconds`` (writers wait meanwhile), then pauses.
    public func removeRemnants() async throws -> RemnantRemoval {
        let (path, configuration) = (self.path, self.configuration)
        return try await Self.blocking { () throws(StoreError) in
            try Self.checkpoint(path: path, configuration: configuration)
        }
    }

    /// Purged rows' bytes are zeroed as they are freed (`secure_delete`); the checkpoint moves the pages out of
    /// the write-ahead log, as after an erasure.
    public func removeRemnantsOfPurge() async throws -> RemnantRemoval {
        try await removeRemnants()
    }

    /// `VACUUM` rebuilds the database file from its live content only, so clear-text bytes an older release
    /// left in free pages and free space are gone (https://www.sqlite.org/lang_vacuum.html), then the log is
    /// checkpointed and truncated.
    public func compactAfterConversion() async throws -> RemnantRemoval {
        let (path, configuration) = (self.path, self.configuration)
        return try await Self.blocking { () throws(StoreError) in
            do {
                let connection = try SQLiteConnection(
                    path: path, role: .maintenance, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
                defer { connection.close() }
                try connection.executeScript("VACUUM")
            } catch {
                throw StoreError(converting: error)
            }
            let removal = try Self.checkpoint(path: path, configuration: configuration)
            return RemnantRemoval(complete: removal.complete, description: "VACUUM, " + removal.description)
        }
    }

    static func checkpoint(path: String, configuration: SQLiteStoreConfiguration) throws(StoreError) -> RemnantRemoval {
        do {
            let connection = try SQLiteConnection(
                path: path, role: .maintenance, busyTimeoutMilliseconds: configuration.checkpointBusyMilliseconds)
            defer { connection.close() }
            for attempt in 1...configuration.checkpointAttempts {
                // One row: busy (1 when readers or a writer kept it from finishing), log frames, checkpointed.
                let busy = try connection.queryInt64("PRAGMA wal_checkpoint(TRUNCATE)") ?? 1
                if busy == 0 {
                    return RemnantRemoval(
                        complete: true, description: "secure_delete, wal_checkpoint(TRUNCATE)")
                }
                if attempt < configuration.checkpointAttempts {
                    usleep(SQLiteStoreConfiguration.checkpointPauseMilliseconds * 1000)
                }
            }
            return RemnantRemoval(
                complete: false,
                description: "wal_checkpoint(TRUNCATE) busy after \(configuration.checkpointAttempts) attempts")
        } catch {
            throw StoreError(converting: error)
        }
    }

    private static func blocking<T: Sendable>(
        _ body: @escaping @Sendable () throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await BlockingExecutor.shared.run(body)
    }
}
