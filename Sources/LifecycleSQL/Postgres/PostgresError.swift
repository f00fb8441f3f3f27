import CLibPQ

/// A failed libpq call. Carries the SQLSTATE, the server's primary message and the SQL text, never the
/// bound values nor the server's DETAIL field (which quotes key values: subs, e-mails, tokens).
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html); nil when the
    /// failure was on the client side or the connection broke.
    package var sqlState: String?
    package var message: String
    package var sql: String?

    package var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let sql {
            let compact = sql.split(whereSeparator: { $0 == "\n" || $0 == " " }).joined(separator: " ")
            text += " - while executing `\(compact)`"
        }
        return text
    }

    /// Class 08 is "connection exception"; a nil state with a broken connection is the same thing.
    package var isConnectionFailure: Bool {
        sqlState?.hasPrefix("08") ?? true
    }

    /// A stored value this build cannot read back. Names the table and column only.
    package static func unreadable(_ table: String, _ column: String) -> PostgresError {
        PostgresError(sqlState: "XX001", message: "\(table).\(column) holds a value this build cannot read")
    }

    /// Reads the error of a failed result, or of the connection when there is no result.
    package init(result: OpaquePointer?, connection: OpaquePointer?, sql: String?) {
        func field(_ code: UInt8) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code)) else { return nil }
            return String(cString: value)
        }
        sqlState = field(UInt8(ascii: "C"))
        if let primary = field(UInt8(ascii: "M")) {
            message = primary
        } else if let connection, let text = PQerrorMessage(connection) {
            message = String(cString: text).trimmingTrailingNewlines()
        } else {
            message = "unknown error"
        }
        self.sql = sql
    }

    package init(sqlState: String? = nil, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline { text = text.dropLast() }
        return String(text)
    }
}
