import LifecycleCore
import LifecycleSQL

extension SQLiteStore {
    /// Copies the database at `database` into a new file `destination` with SQLite's online backup API
    /// (``SQLiteConnection/backup(into:busyTimeoutMilliseconds:)``), on a connection of its own, while
    /// other connections and processes keep reading and writing. Returns the schema version the copy was
    /// taken at. Blocks the calling thread.
    public static func backup(
        database: String, to destination: String, busyTimeoutMilliseconds: Int32
    ) throws(StoreError) -> Int {
        do {
            let connection = try SQLiteConnection(
                path: database, role: .reader, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            defer { connection.close() }
            let version = try connection.queryInt64("SELECT max(version) FROM schema_migrations") ?? 0
            try connection.backup(into: destination, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            return Int(version)
        } catch {
            throw StoreError(error)
        }
    }
}
