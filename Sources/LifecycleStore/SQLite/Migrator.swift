import LifecycleCore

/// Brings a database up to the schema this build knows, one step per transaction.
struct Migrator {
    var migrations: [Migration]

    init(migrations: [Migration] = SQLiteSchema.migrations) {
        precondition(
            migrations.enumerated().allSatisfy { $0.offset + 1 == $0.element.version },
            "migration versions must be 1, 2, 3 ... in order")
        self.migrations = migrations
    }

    var supportedVersion: Int { migrations.count }

    /// Applies every missing step. Each runs under `BEGIN IMMEDIATE` and re-reads the applied versions inside
    /// the transaction, so two processes opening the same file at once apply each step exactly once.
    ///
    /// - Throws: ``StoreError/schemaTooNew(found:supported:)`` when the file was migrated by a newer build;
    ///   ``StoreError/unavailable(_:)`` when a recorded step has another name or SQLite fails.
    func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        do {
            try connection.executeScript(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at_ms INTEGER NOT NULL
                )
                """)
        } catch {
            throw StoreError(error)
        }
        for migration in migrations {
            try apply(migration, to: connection)
        }
        // Also covers a database that needed no step: it may still be ahead of this build.
        try checkNotNewer(connection)
    }

    private func apply(_ migration: Migration, to connection: SQLiteConnection) throws(StoreError) {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw StoreError(error)
        }
        do {
            try checkNotNewer(connection)
            let recorded = try sqlite {
                try connection.queryText(
                    "SELECT name FROM schema_migrations WHERE version = ?", [migration.version])
            }
            if let recorded {
                guard recorded == migration.name else {
                    throw StoreError.unavailable(
                        "database at \(connection.path) records migration \(migration.version) as '\(recorded)', "
                            + "but this build calls it '\(migration.name)'")
                }
            } else {
                try sqlite {
                    try connection.executeScript(migration.sql)
                    try connection.execute(
                        "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)",
                        [migration.version, migration.name, SystemClock().now().millisecondsSinceEpoch])
                }
            }
            try sqlite { try connection.execute("COMMIT") }
        } catch {
            try? connection.execute("ROLLBACK")
            throw StoreError(converting: error)
        }
    }

    private func checkNotNewer(_ connection: SQLiteConnection) throws(StoreError) {
        let found = try sqlite { try connection.queryInt64("SELECT max(version) FROM schema_migrations") } ?? 0
        guard found <= Int64(supportedVersion) else {
            throw StoreError.schemaTooNew(found: Int(found), supported: supportedVersion)
        }
    }

    private func sqlite<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(converting: error)
        }
    }
}
