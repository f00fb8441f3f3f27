import LifecycleSQL

/// Reads a service store's SQLite file from outside the process that wrote it, as a test checks what `serve`
/// or a command left on disk.
enum StoreFile {
    /// The single integer `query` answers (a `count(*)`, a `max(…)`), or -1 when it answers no row.
    static func count(_ query: String, in path: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: path, role: .reader, busyTimeoutMilliseconds: 5000)
        defer { connection.close() }
        return try connection.queryInt64(query) ?? -1
    }
}
