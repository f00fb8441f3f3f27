import CSQLite

/// One of the app's own connections to its SQLite database, as the app would open it: a plain connection
/// that leaves the file's journal mode as it is and waits out other writers in its busy timeout.
///
/// Not the service's `SQLiteConnection`: that one switches a file to WAL when it opens it, and on an app
/// database in rollback-journal mode the switch is a lock upgrade inside a read transaction, which SQLite
/// refuses at once with `SQLITE_BUSY` (no busy handler, to avoid deadlock) whenever another connection holds
/// a lock at that moment, such as a `serve` instance's erasure step.
final class AppDatabaseConnection {
    private var handle: OpaquePointer?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String, busyTimeoutMilliseconds: Int32 = 0) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, handle != nil else {
            defer { close() }
            throw Failure(description: "\(path): cannot open: \(message)")
        }
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { close() }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "\(sql): \(message)")
        }
    }

    /// The first column of the first row of `sql`.
    func queryInteger(_ sql: String) throws -> Int64 {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: "\(sql): \(message)")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw Failure(description: "\(sql): \(message)") }
        return sqlite3_column_int64(statement, 0)
    }

    /// Closes the handle once (sqlite3_open_v2 allocates one even when it fails).
    func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    private var message: String { handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "no handle" }
}

/// Holds an app database's write lock the way one of the app's own connections would (``AppDatabaseConnection``).
final class AppDatabaseWriteLock {
    private let connection: AppDatabaseConnection

    /// Opens `path` and runs `BEGIN IMMEDIATE`, waiting up to `busyTimeoutMilliseconds` for other writers.
    init(path: String, busyTimeoutMilliseconds: Int32) throws {
        connection = try AppDatabaseConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try connection.execute("BEGIN IMMEDIATE")
    }

    /// Commits the (empty) transaction and closes the connection.
    func release() throws {
        defer { connection.close() }
        try connection.execute("COMMIT")
    }
}

/// One of the app's readers: puts the app database in WAL mode, then holds a read transaction (a snapshot)
/// until ``leave()``.
final class AppDatabaseReader {
    private let connection: AppDatabaseConnection

    init(path: String) throws {
        connection = try AppDatabaseConnection(path: path)
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("BEGIN")
        _ = try snapshotUsers()
    }

    /// Rows in `users` as this connection's snapshot sees them (the first read starts the snapshot).
    func snapshotUsers() throws -> Int64 { try connection.queryInteger("SELECT count(*) FROM users") }

    /// Ends the read transaction and closes the connection.
    func leave() throws {
        defer { connection.close() }
        try connection.execute("COMMIT")
    }
}
