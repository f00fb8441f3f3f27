import CSQLite

/// A failed SQLite call. Like GRDB's `DatabaseError`, it carries the result code, SQLite's message and the
/// SQL text, but never the bound arguments: those are subs, e-mails and tokens, which must not reach logs.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (https://www.sqlite.org/rescode.html).
    var code: Int32
    var message: String
    var sql: String?

    /// The primary result code: the low byte of the extended code.
    var primaryCode: Int32 { code & 0xFF }

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql {
            // One line, so a log record stays one record.
            let compact = sql.split(whereSeparator: { $0 == "\n" || $0 == " " }).joined(separator: " ")
            text += " - while executing `\(compact)`"
        }
        return text
    }

    /// Reads the last error from a connection handle.
    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        self.code = code
        if let connection, let cString = sqlite3_errmsg(connection) {
            self.message = String(cString: cString)
        } else if let cString = sqlite3_errstr(code) {
            self.message = String(cString: cString)
        } else {
            self.message = "unknown error"
        }
        self.sql = sql
    }

    init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }
}

extension SQLiteError {
    /// A stored value this build cannot read back (written by a newer build, or edited by hand). Names the
    /// table and column only: the value itself may be personal data.
    static func unreadable(_ table: String, _ column: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: "\(table).\(column) holds a value this build cannot read")
    }
}

extension StoreError {
    /// How the store reports a low-level failure to callers: as unavailability, with SQLite's own words and
    /// the SQL text (no bound values), so an operator sees what failed and the caller need not know SQL.
    init(_ error: SQLiteError) {
        self = .unavailable(error.description)
    }
}

extension StoreError {
    /// Keeps a ``StoreError`` as it is and turns an SQLite failure into ``unavailable(_:)``.
    init(converting error: any Error) {
        switch error {
        case let error as StoreError: self = error
        case let error as SQLiteError: self.init(error)
        default: self = .unavailable(String(describing: type(of: error)))
        }
    }
}
