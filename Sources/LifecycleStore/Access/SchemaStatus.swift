import Glibc
import LifecycleCore
import LifecycleSQL

/// Where a database's schema stands against this build's, read without changing anything: what
/// `lifecycle migrate --check` prints for a deploy pipeline before it runs `lifecycle migrate`.
public struct SchemaStatus: Sendable, Equatable {
    /// The latest migration step applied to the database; 0 when it has none (a new or empty database).
    public var applied: Int
    /// The latest step this build knows.
    public var supported: Int

    public init(applied: Int, supported: Int) {
        self.applied = applied
        self.supported = supported
    }

    /// `migrate` (or `serve`, which migrates at start) has steps to apply.
    public var isBehind: Bool { applied < supported }
    /// Written by a newer build: this one refuses to open it.
    public var isNewer: Bool { applied > supported }
}

extension Migrator {
    /// The applied step, from `schema_migrations` when the table exists; reads only.
    func status<Connection: MigratingConnection>(_ connection: Connection) throws(StoreError) -> SchemaStatus {
        do {
            let exists = try connection.fetchInt64(Connection.dialect.tableExists, ["schema_migrations"]) ?? 0
            let applied = exists > 0 ? try connection.fetchInt64("SELECT max(version) FROM schema_migrations") ?? 0 : 0
            return SchemaStatus(applied: Int(applied), supported: supportedVersion)
        } catch {
            throw StoreError(converting: error)
        }
    }
}

extension SQLiteStore {
    /// The schema status of the database at `path`; a missing file is a database with no step applied, and
    /// is not created.
    public static func schemaStatus(path: String, busyTimeoutMilliseconds: Int32) async throws(StoreError)
        -> SchemaStatus
    {
        try await BlockingExecutor.shared.run { () throws(StoreError) -> SchemaStatus in
            let migrator = Migrator()
            guard access(path, F_OK) == 0 else {
                return SchemaStatus(applied: 0, supported: migrator.supportedVersion)
            }
            let connection: SQLiteConnection
            do {
                connection = try SQLiteConnection(
                    path: path, role: .reader, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            } catch {
                throw StoreError(converting: error)
            }
            defer { connection.close() }
            return try migrator.status(connection)
        }
    }
}

extension PostgresStore {
    /// The schema status of the database at `url` (in `configuration.schema` when set), on one connection
    /// that changes nothing.
    public static func schemaStatus(
        url: String, configuration: PostgresStoreConfiguration = .init()
    ) async throws(StoreError) -> SchemaStatus {
        guard accepts(url: url) else {
            throw StoreError.unavailable("not a PostgreSQL URL (expected postgres:// or postgresql://)")
        }
        guard configuration.hasValidSchema else {
            throw StoreError.unavailable("schema name must be lower-case ASCII letters, digits and _")
        }
        return try await PostgresBlocking.run { () throws(StoreError) -> SchemaStatus in
            let connection: PostgresConnection
            do {
                connection = try connect(url: url, schema: configuration.schema, configuration)
            } catch {
                throw StoreError(converting: error)
            }
            defer { connection.close() }
            return try PostgresMigrator().migrator.status(connection)
        }
    }
}
