import LifecycleCore

/// Brings a PostgreSQL schema up to the version this build knows, one step per transaction, and refuses a
/// schema migrated by a newer build.
///
/// Several instances may start at once against one database: the whole run holds a session advisory lock
/// (https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS) keyed by the schema, so each step
/// is applied exactly once and `CREATE ... IF NOT EXISTS` never races.
struct PostgresMigrator {
    var migrations: [Migration]

    init(migrations: [Migration] = PostgresSchema.migrations) {
        precondition(
            migrations.enumerated().allSatisfy { $0.offset + 1 == $0.element.version },
            "migration versions must be 1, 2, 3 ... in order")
        self.migrations = migrations
    }

    var supportedVersion: Int { migrations.count }

    /// - Parameter schema: the schema to create when missing and migrate, which becomes the connection's
    ///   `search_path` (nil: the connection's default, normally `public`).
    func migrate(_ connection: PostgresConnection, schema: String?) throws(StoreError) {
        let lockKey = "lifecycle-migrate:" + (schema ?? "")
        try postgres { _ = try connection.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [lockKey]) }
        defer { _ = try? connection.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockKey]) }
        _ = try postgres {
            if let schema {
                // A validated identifier (PostgresStoreConfiguration), so interpolating it is safe.
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \"\(schema)\"")
                _ = try connection.query("SELECT set_config('search_path', $1, false)", ["\"\(schema)\""])
            }
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version BIGINT PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at_ms BIGINT NOT NULL
                )
                """)
        }
        try checkNotNewer(connection)
        for migration in migrations {
            try apply(migration, to: connection)
        }
    }

    private func apply(_ migration: Migration, to connection: PostgresConnection) throws(StoreError) {
        _ = try postgres { try connection.execute("BEGIN") }
        do {
            let recorded = try postgres {
                try connection.queryText("SELECT name FROM schema_migrations WHERE version = $1", [migration.version])
            }
            if let recorded {
                guard recorded == migration.name else {
                    throw StoreError.unavailable(
                        "the database records migration \(migration.version) as '\(recorded)', "
                            + "but this build calls it '\(migration.name)'")
                }
            } else {
                try postgres {
                    try connection.execute(migration.sql)
                    _ = try connection.query(
                        "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, $3)",
                        [migration.version, migration.name, SystemClock().now().millisecondsSinceEpoch])
                }
            }
            let tag = try postgres { try connection.execute("COMMIT") }
            guard tag == "COMMIT" else { throw StoreError.unavailable("migration \(migration.name) was rolled back") }
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw StoreError(convertingPostgres: error)
        }
    }

    private func checkNotNewer(_ connection: PostgresConnection) throws(StoreError) {
        let found = try postgres { try connection.queryInt64("SELECT max(version) FROM schema_migrations") } ?? 0
        guard found <= Int64(supportedVersion) else {
            throw StoreError.schemaTooNew(found: Int(found), supported: supportedVersion)
        }
    }

    private func postgres<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(convertingPostgres: error)
        }
    }
}
