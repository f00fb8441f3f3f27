import CSQLite

/// One SQLite connection with its prepared-statement cache.
///
/// `@unchecked Sendable` because the C handle is not thread-safe (it is opened with `SQLITE_OPEN_NOMUTEX`):
/// a connection is created on the caller's thread and then handed over to exactly one owner thread
/// (``ConnectionOwner``), which is the only code that touches it until it is closed. The hand-over is the
/// only cross-thread use; it is ordered by the thread start.
package final class SQLiteConnection: @unchecked Sendable {
    /// What a connection is for, which decides its pragmas.
    package enum Role {
        /// The single writer: creates the file and runs migrations.
        case writer
        /// A reader: `query_only`, so a read body cannot change data even through a cast.
        case reader
        /// Checkpoints and `VACUUM` after erasure, outside the writer's transactions.
        case maintenance
    }

    package let path: String
    private(set) var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]
    /// The write-ahead-log hook's closure (``onLogCommit(_:)``), kept alive while SQLite holds its pointer.
    var logHook: SQLiteLogHookBox?

    /// Opens `path` and applies the durability pragmas every connection needs.
    ///
    /// - `journal_mode=WAL` (writer and maintenance connections; a reader uses the file as it is and never
    ///   checkpoints on close): readers never block the writer and the writer never blocks readers
    ///   (https://www.sqlite.org/wal.html).
    /// - `synchronous=FULL`: in WAL mode, a commit is durable across power loss once it returns
    ///   (https://www.sqlite.org/pragma.html#pragma_synchronous); NORMAL would only be consistent.
    /// - `busy_timeout`: how long to wait for a lock held by another process before giving up.
    /// - `foreign_keys=ON`: SQLite leaves them off by default for compatibility.
    /// - `secure_delete=ON`: deleted and overwritten content is overwritten with zeros in the page, and freed
    ///   pages are zeroed (https://www.sqlite.org/pragma.html#pragma_secure_delete), so an erased value leaves
    ///   no bytes in free space; some builds have it on by default, others not, so it is set, not assumed.
    package init(path: String, role: Role, busyTimeoutMilliseconds: Int32) throws(SQLiteError) {
        self.path = path
        let flags: Int32 =
            switch role {
            case .writer: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            case .reader, .maintenance: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
            }
        let connection: OpaquePointer
        do {
            connection = try SQLiteLibrary.open(path, flags: flags)
        } catch {
            throw SQLiteError(code: error.code, message: "cannot open database at \(path): \(error.message)")
        }
        self.handle = connection
        sqlite3_extended_result_codes(connection, 1)
        do {
            try configure(connection, role: role, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        } catch {
            close()
            throw SQLiteError(code: error.code, message: "cannot open database at \(path): \(error.message)")
        }
    }

    private func configure(
        _ connection: OpaquePointer, role: Role, busyTimeoutMilliseconds: Int32
    ) throws(SQLiteError) {
        let timeoutCode = sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
        guard timeoutCode == SQLITE_OK else { throw SQLiteError(code: timeoutCode, connection: connection) }
        // A reader leaves the file as it is: its journal mode (the store's writer makes it a WAL database, which
        // every later connection uses), and, closing as the last connection, a log a crash left, which SQLite
        // would otherwise checkpoint into the file; `migrate --check` and `backup` read files they must not
        // change. The store closes its readers before its writer, which checkpoints as it closes.
        if role == .reader {
            let code = lifecycle_sqlite3_no_checkpoint_on_close(connection, 1)
            guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection) }
        } else {
            let mode = try queryText("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(
                    code: SQLITE_CANTOPEN, message: "cannot use write-ahead logging (journal_mode is \(mode ?? "?"))")
            }
        }
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA secure_delete = ON")
        // A group-commit write that shares its batch runs in a SAVEPOINT, and every statement that may fail
        // part-way in a statement savepoint; their journal holds the pages as they were before. With the default temp store that journal spills to an unlinked file once it passes 64 KiB
        // (SQLITE_STMTJRNL_SPILL, https://www.sqlite.org/tempfiles.html §2.6): a notification's savepoint
        // wrote about 97 KB there, twice what it wrote to the WAL, and an erasure's savepoint left the erased
        // rows' old pages in disk blocks that `secure_delete` and the WAL truncation never reach. In memory
        // the journal costs neither.
        try execute("PRAGMA temp_store = MEMORY")
        if role == .reader { try execute("PRAGMA query_only = ON") }
    }

    deinit {
        close()
    }

    /// Finalizes cached statements and closes the handle. The last connection to close checkpoints the WAL.
    package func close() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        if let handle {
            if logHook != nil { sqlite3_wal_hook(handle, nil, nil) }
            sqlite3_close_v2(handle)
        }
        handle = nil
        logHook = nil
    }

    private func openHandle(sql: String?) throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "connection is closed", sql: sql) }
        return handle
    }

    /// True when no transaction is open. SQLite rolls a transaction back by itself after some errors
    /// (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM: https://www.sqlite.org/lang_transaction.html),
    /// and the writer checks this to know a batch is lost.
    package var isAutocommit: Bool {
        guard let handle else { return true }
        return sqlite3_get_autocommit(handle) != 0
    }

    // MARK: Statements

    /// The cached prepared statement for `sql`, prepared on first use. Only constant SQL belongs here:
    /// values are always bound, never interpolated, so the cache stays small and errors stay free of data.
    /// Parameters may be numbered as PostgreSQL numbers them (`$1`): they are prepared in SQLite's form (`?1`,
    /// ``SQLiteNumberedParameters``) once, on the cache miss, so a cached call costs what it always did.
    package func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try SQLiteStatement(
            connection: try openHandle(sql: sql), sql: SQLiteNumberedParameters.sqliteForm(sql))
        statements[sql] = statement
        return statement
    }

    /// Runs one statement that returns no rows of interest.
    package func execute(_ sql: String, _ arguments: [any SQLiteBindable] = []) throws(SQLiteError) {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// Runs one statement and hands each row to `row`.
    package func forEachRow(
        _ sql: String, _ arguments: [any SQLiteBindable] = [], _ row: (SQLiteStatement) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() { try row(statement) }
    }

    /// Runs one statement and decodes its first row, if any.
    package func firstRow<T>(
        _ sql: String, _ arguments: [any SQLiteBindable] = [], _ decode: (SQLiteStatement) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T? {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        return try statement.step() ? try decode(statement) : nil
    }

    package func queryInt64(_ sql: String, _ arguments: [any SQLiteBindable] = []) throws(SQLiteError) -> Int64? {
        try firstRow(sql, arguments) { $0.optionalInt64(0) } ?? nil
    }

    package func queryText(_ sql: String, _ arguments: [any SQLiteBindable] = []) throws(SQLiteError) -> String? {
        try firstRow(sql, arguments) { $0.optionalText(0) } ?? nil
    }

    /// Runs several `;`-separated statements without caching them: for schema scripts only.
    package func executeScript(_ sql: String) throws(SQLiteError) {
        let handle = try openHandle(sql: sql)
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text, sql: sql)
        }
    }
}
