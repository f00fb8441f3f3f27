import LifecycleCore
import LifecycleSQL

/// Brings a database up to the schema this build knows, one step per transaction, and refuses a database
/// migrated by a newer build. One migrator for both databases; each connection says how it opens and ends a
/// step's transaction (``MigratingConnection``).
struct Migrator {
    var migrations: [Migration]

    init(migrations: [Migration] = SQLiteSchema.migrations) {
        precondition(
            migrations.enumerated().allSatisfy { $0.offset + 1 == $0.element.version },
            "migration versions must be 1, 2, 3 ... in order")
        self.migrations = migrations
    }

    var supportedVersion: Int { migrations.count }

    /// Applies every missing step. Each runs in its own transaction and re-reads the applied versions inside
    /// it, so two processes opening the same database at once apply each step exactly once (SQLite: `BEGIN
    /// IMMEDIATE` takes the write lock first; PostgreSQL: ``PostgresMigrator`` holds an advisory lock around
    /// the whole run).
    ///
    /// - Throws: ``StoreError/schemaTooNew(found:supported:)`` when the database was migrated by a newer
    ///   build; ``StoreError/unavailable(_:)`` when a recorded step has another name or the database fails.
    func migrate<Connection: MigratingConnection>(_ connection: Connection) throws(StoreError) {
        try sql {
            try connection.executeScript(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version \(Connection.dialect.integer) PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at_ms \(Connection.dialect.integer) NOT NULL
                )
                """)
        }
        for migration in migrations {
            try apply(migration, to: connection)
        }
        // Also covers a database that needed no step: it may still be ahead of this build.
        try checkNotNewer(connection)
    }

    private func apply<Connection: MigratingConnection>(
        _ migration: Migration, to connection: Connection
    ) throws(StoreError) {
        try sql { try connection.beginMigrationStep() }
        do {
            try checkNotNewer(connection)
            let recorded = try sql {
                try connection.fetchText("SELECT name FROM schema_migrations WHERE version = $1", [migration.version])
            }
            if let recorded {
                guard recorded == migration.name else {
                    throw StoreError.unavailable(
                        "\(connection.databaseDescription) records migration \(migration.version) as '\(recorded)', "
                            + "but this build calls it '\(migration.name)'")
                }
            } else {
                try sql {
                    try connection.executeScript(migration.sql)
                    try connection.run(
                        "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, $3)",
                        [migration.version, migration.name, SystemClock().now().millisecondsSinceEpoch])
                }
            }
            let committed = try sql { try connection.commitMigrationStep() }
            guard committed else { throw StoreError.unavailable("migration \(migration.name) was rolled back") }
        } catch {
            connection.rollBackMigrationStep()
            throw StoreError(converting: error)
        }
    }

    private func checkNotNewer<Connection: MigratingConnection>(_ connection: Connection) throws(StoreError) {
        let found = try sql { try connection.fetchInt64("SELECT max(version) FROM schema_migrations") } ?? 0
        guard found <= Int64(supportedVersion) else {
            throw StoreError.schemaTooNew(found: Int(found), supported: supportedVersion)
        }
    }

    private func sql<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(converting: error)
        }
    }
}

/// What ``Migrator`` needs beyond queries: a step's transaction and scripts of several statements.
protocol MigratingConnection: StoreConnection {
    /// Names the database in errors (a file's path; never a URL, which may hold a password).
    var databaseDescription: String { get }
    func beginMigrationStep() throws
    /// False when the database rolled the transaction back instead of committing it.
    func commitMigrationStep() throws -> Bool
    func rollBackMigrationStep()
    /// Runs several `;`-separated statements (DDL).
    func executeScript(_ sql: String) throws
}

extension SQLiteConnection: MigratingConnection {
    var databaseDescription: String { "database at \(path)" }

    /// `BEGIN IMMEDIATE` takes the write lock before the applied versions are read.
    func beginMigrationStep() throws { try execute("BEGIN IMMEDIATE") }

    func commitMigrationStep() throws -> Bool {
        try execute("COMMIT")
        return true
    }

    func rollBackMigrationStep() { try? execute("ROLLBACK") }
}

extension PostgresConnection: MigratingConnection {
    var databaseDescription: String { "the database" }

    func beginMigrationStep() throws { try execute("BEGIN") }

    /// COMMIT of a transaction with a failed statement answers `ROLLBACK` instead of failing.
    func commitMigrationStep() throws -> Bool { try execute("COMMIT") == "COMMIT" }

    func rollBackMigrationStep() { _ = try? execute("ROLLBACK") }

    /// The simple query protocol runs several statements in one call.
    func executeScript(_ sql: String) throws { try execute(sql) }
}
