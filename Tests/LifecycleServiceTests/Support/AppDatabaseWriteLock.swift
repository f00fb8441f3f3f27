import CSQLite

/// Holds an app database's write lock the way one of the app's own connections would: a plain connection
/// that leaves the file's journal mode as it is and waits out other writers in its busy timeout.
///
/// Not the service's `SQLiteConnection`: that one switches a file to WAL when it opens it, and on an app
/// database in rollback-journal mode the switch is a lock upgrade inside a read transaction, which SQLite
/// refuses at once with `SQLITE_BUSY` (no busy handler, to avoid deadlock) whenever another connection holds
/// a lock at that moment, such as a `serve` instance's erasure step.
final class AppDatabaseWriteLock {
    private var handle: OpaquePointer?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Opens `path` and runs `BEGIN IMMEDIATE`, waiting up to `busyTimeoutMilliseconds` for other writers.
    init(path: String, busyTimeoutMilliseconds: Int32) throws {
        do {
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, handle != nil else {
                throw Failure(description: "\(path): cannot open: \(message)")
            }
            sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
            try execute("BEGIN IMMEDIATE")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Commits the (empty) transaction and closes the connection.
    func release() throws {
        defer { close() }
        try execute("COMMIT")
    }

    /// Closes the handle once (sqlite3_open_v2 allocates one even when it fails).
    private func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    private var message: String { handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "no handle" }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "\(sql): \(message)")
        }
    }
}
