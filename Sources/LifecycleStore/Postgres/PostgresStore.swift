import Dispatch
import LifecycleCore
import LifecycleSQL

/// The PostgreSQL implementation of ``Store``, through libpq: several `serve` instances share one database.
///
/// Opening connects the pool (``PostgresStoreConfiguration/connectionCount`` connections), creates the
/// schema when asked to, and applies every missing migration (``PostgresSchema``). Every value is bound as a
/// parameter of a prepared statement, never interpolated. TLS to the server is whatever the URL's `sslmode`
/// asks for (https://www.postgresql.org/docs/15/libpq-ssl.html): `require`, `verify-ca`, `verify-full`.
///
/// What makes several instances safe is in the SQL, not in this process: unique keys decide duplicates
/// (``StoreAccess/insertNotification(_:)``), claims lock with `FOR UPDATE SKIP LOCKED`
/// (``StoreAccess/claimOutbox(now:owner:leaseUntil:limit:)``), and ``withExclusiveLock(named:_:)`` is a
/// server-side advisory lock.
public final class PostgresStore: Store {
    public let configuration: PostgresStoreConfiguration
    /// Kept to open the dedicated connections of exclusive locks; never logged (it may hold a password).
    private let url: String
    private let pool: PostgresPool
    private let counters = StoreCounters()

    /// The schema version this build creates and understands.
    public static var schemaVersion: Int { PostgresSchema.migrations.count }

    /// True for the URL schemes libpq accepts as a connection URI: `postgres://` and `postgresql://`.
    public static func accepts(url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }

    /// Connects and migrates. Blocks the calling thread on the network; from async code prefer
    /// ``open(url:configuration:)``.
    ///
    /// - Throws: ``StoreError/unavailable(_:)`` when the server cannot be reached or refuses the login (the
    ///   message never repeats the URL, which may hold a password); ``StoreError/schemaTooNew(found:supported:)``
    ///   when a newer build migrated the schema.
    public init(url: String, configuration: PostgresStoreConfiguration = .init()) throws(StoreError) {
        guard Self.accepts(url: url) else {
            throw StoreError.unavailable("not a PostgreSQL URL (expected postgres:// or postgresql://)")
        }
        guard configuration.hasValidSchema else {
            throw StoreError.unavailable("schema name must be lower-case ASCII letters, digits and _")
        }
        self.url = url
        self.configuration = configuration
        var connections: [PostgresConnection] = []
        do {
            let first = try Self.connect(url: url, schema: nil, configuration)
            connections.append(first)
            try PostgresMigrator().migrate(first, schema: configuration.schema)
            if configuration.schema != nil {
                // The first connection was opened before its schema existed; give it the search path now.
                first.close()
                connections[0] = try Self.connect(url: url, schema: configuration.schema, configuration)
            }
            while connections.count < configuration.connectionCount {
                connections.append(try Self.connect(url: url, schema: configuration.schema, configuration))
            }
            pool = try PostgresPool(connections: connections, configuration: configuration, counters: counters)
        } catch {
            for connection in connections { connection.close() }
            throw StoreError(converting: error)
        }
    }

    /// Connects and migrates without blocking a Swift concurrency thread.
    public static func open(
        url: String, configuration: PostgresStoreConfiguration = .init()
    ) async throws(StoreError) -> PostgresStore {
        try await PostgresBlocking.run { () throws(StoreError) in
            try PostgresStore(url: url, configuration: configuration)
        }
    }

    static func connect(
        url: String, schema: String?, _ configuration: PostgresStoreConfiguration
    ) throws(PostgresError) -> PostgresConnection {
        try PostgresConnection(
            url: url, schema: schema, connectTimeoutSeconds: configuration.connectTimeoutSeconds)
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreWriter) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            if !pool.enqueue(.write(QueuedWrite(body: body, continuation: continuation))) {
                continuation.resume(throwing: StoreError.closed)
            }
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            if !pool.enqueue(.read(QueuedRead(body: body, continuation: continuation))) {
                continuation.resume(throwing: StoreError.closed)
            }
        }
    }

    public func close() async {
        await pool.close()
    }

    public var statistics: StoreStatistics {
        counters.snapshot(queuedWrites: pool.queuedWrites)
    }

    /// A session-level advisory lock (`pg_try_advisory_lock`,
    /// https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS) held on a dedicated
    /// connection for as long as `body` runs, keyed by a 64-bit hash of the schema and `name`. The server
    /// releases it when that connection ends, so an instance killed mid-run leaves no stale lock behind; the
    /// flip side is that a network failure during `body` releases it early (the body is then not told).
    public func withExclusiveLock<T: Sendable>(
        named name: String, _ body: @Sendable () async throws -> T
    ) async throws -> T? {
        let key = "lifecycle-lock:" + (configuration.schema ?? "") + ":" + name
        let url = self.url
        let configuration = self.configuration
        let holder = try await PostgresBlocking.run { () throws(StoreError) -> PostgresConnection? in
            do {
                let connection = try Self.connect(url: url, schema: nil, configuration)
                let row = try connection.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", [key])
                if row.first?.bool(0) == true { return connection }
                connection.close()
                return nil
            } catch {
                throw StoreError(converting: error)
            }
        }
        guard let holder else { return nil }
        let release = { @Sendable () async in
            _ = try? await PostgresBlocking.run { () throws(StoreError) in
                _ = try? holder.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key])
                holder.close()
            }
        }
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }
}

extension PostgresStore {
    /// `VACUUM subject_keys` (https://www.postgresql.org/docs/15/sql-vacuum.html) on a connection of its own,
    /// outside any transaction: removes the old row versions of destroyed data keys from the heap so they are
    /// not kept for ever. It takes only a `SHARE UPDATE EXCLUSIVE` lock (ingest goes on) and is bounded by
    /// `statement_timeout`. What VACUUM frees is not zeroed, and WAL segments, replicas and base backups keep
    /// their copies: those hold keys wrapped by the master key in force at the erasure, unreadable once it is
    /// rotated away (`lifecycle keys rotate`).
    public func removeRemnants() async throws -> RemnantRemoval {
        try await vacuum(["VACUUM subject_keys"])
    }

    public func removeRemnantsOfPurge() async throws -> RemnantRemoval {
        try await vacuum([
            "VACUUM notifications, rejections, outbox, account_history, findings, heartbeats", "VACUUM subject_keys",
        ])
    }

    /// `VACUUM FULL notifications` writes the inbox into a new file and drops the old one, so the clear-text
    /// values of an older release are not left in its pages; then the key table is vacuumed. It locks the
    /// inbox for its duration (once, on upgrade).
    public func compactAfterConversion() async throws -> RemnantRemoval {
        try await vacuum(["VACUUM FULL notifications", "VACUUM subject_keys"])
    }

    private func vacuum(_ statements: [String]) async throws -> RemnantRemoval {
        let (url, configuration) = (self.url, self.configuration)
        return try await PostgresBlocking.run { () throws(StoreError) -> RemnantRemoval in
            do {
                let connection = try Self.connect(url: url, schema: configuration.schema, configuration)
                defer { connection.close() }
                try connection.execute("SET statement_timeout = \(configuration.maintenanceTimeoutMilliseconds)")
                for statement in statements { try connection.execute(statement) }
                return RemnantRemoval(complete: true, description: statements.joined(separator: ", "))
            } catch {
                throw StoreError(converting: error)
            }
        }
    }
}

/// Runs blocking libpq work (connecting, a lock query) on the ``BlockingExecutor`` rather than on one of the
/// few Swift concurrency threads.
enum PostgresBlocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        try await BlockingExecutor.shared.run(body)
    }
}
