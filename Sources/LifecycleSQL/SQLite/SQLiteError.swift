import CSQLite

/// A failed SQLite call. Like GRDB's `DatabaseError`, it carries the result code, SQLite's message and the
/// SQL text, but never the bound arguments: those are subs, e-mails and tokens, which must not reach logs.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (https://www.sqlite.org/rescode.html).
    package var code: Int32
    package var message: String
    package var sql: String?

    /// The primary result code: the low byte of the extended code.
    package var primaryCode: Int32 { code & 0xFF }

    package var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql {
            // One line, so a log record stays one record.
            let compact = sql.split(whereSeparator: { $0 == "\n" || $0 == " " }).joined(separator: " ")
            text += " - while executing `\(compact)`"
        }
        return text
    }

    /// Reads the last error from a connection handle.
    package init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
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

    package init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }
}

extension SQLiteError {
    /// A stored value this build cannot read back (written by a newer build, or edited by hand). Names the
    /// table and column only: the value itself may be personal data.
    package static func unreadable(_ table: String, _ column: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: "\(table).\(column) holds a value this build cannot read")
    }

    /// A constraint the store relies on did not hold (`SQLITE_CONSTRAINT`).
    package static func constraintViolation(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CONSTRAINT, message: message)
    }

    /// A lock could not be had (`SQLITE_BUSY`).
    package static func busy(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_BUSY, message: message)
    }
}
