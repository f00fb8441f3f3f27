import LifecycleSQL

/// Brings a PostgreSQL schema up to the version this build knows with ``Migrator``, in the named schema.
///
/// Several instances may start at once against one database: the whole run holds a session advisory lock
/// (https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS) keyed by the schema, so each step
/// is applied exactly once and `CREATE ... IF NOT EXISTS` never races.
struct PostgresMigrator {
    var migrator: Migrator

    init(migrations: [Migration] = PostgresSchema.migrations) {
        migrator = Migrator(migrations: migrations)
    }

    var supportedVersion: Int { migrator.supportedVersion }

    /// - Parameter schema: the schema to create when missing and migrate, which becomes the connection's
    ///   `search_path` (nil: the connection's default, normally `public`).
    func migrate(_ connection: PostgresConnection, schema: String?) throws(StoreError) {
        let lockKey = "lifecycle-migrate:" + (schema ?? "")
        do {
            _ = try connection.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [lockKey])
        } catch {
            throw StoreError(error)
        }
        defer { _ = try? connection.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockKey]) }
        if let schema {
            do {
                // A validated identifier (PostgresStoreConfiguration), so interpolating it is safe.
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \"\(schema)\"")
                _ = try connection.query("SELECT set_config('search_path', $1, false)", ["\"\(schema)\""])
            } catch {
                throw StoreError(error)
            }
        }
        try migrator.migrate(connection)
    }
}
