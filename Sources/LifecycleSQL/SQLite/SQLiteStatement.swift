import CSQLite
import CShims

/// A prepared statement. Owned by one ``SQLiteConnection`` and used only on that connection's thread.
///
/// Parameters are bound by position (`?`); columns are read by zero-based index while ``step()`` is on a row.
package final class SQLiteStatement {
    package let sql: String
    private let handle: OpaquePointer
    private let connection: OpaquePointer

    package init(connection: OpaquePointer, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, connection: connection, sql: sql)
        }
        self.sql = sql
        self.handle = statement
        self.connection = connection
    }

    /// Releases the statement. Called once by the connection that cached it.
    package func finalize() {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Clears previous bindings and binds `arguments` to parameters 1...n.
    package func bind(_ arguments: [any SQLiteBindable]) throws(SQLiteError) {
        try bind(count: arguments.count) { arguments[$0].sqliteValue }
    }

    /// Clears previous bindings and binds `value(0) … value(count - 1)` to parameters 1...n, with no array of
    /// values built. Not generic on purpose: a generic collection from another module runs unspecialised, and
    /// its iterator's metadata lookups cost more than the binding itself on the ingest and reconcile paths.
    package func bind(count: Int, _ value: (Int) -> SQLiteValue) throws(SQLiteError) {
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "expected \(expected) arguments, got \(count)", sql: sql)
        }
        for offset in 0..<count {
            try bind(value(offset), at: Int32(offset + 1))
        }
    }

    private func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .text(let text):
            let length = text.utf8.count
            guard let length32 = Int32(exactly: length) else { throw tooBig(index) }
            // `withCString` always yields a non-null pointer, so an empty string binds as '' rather than NULL.
            code = text.withCString { shim_sqlite3_bind_text(handle, index, $0, length32) }
        case .blob(let bytes):
            guard let length32 = Int32(exactly: bytes.count) else { throw tooBig(index) }
            if bytes.isEmpty {
                // A null pointer would bind NULL; an empty blob is a zero-length blob.
                code = sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                code = bytes.withUnsafeBytes { shim_sqlite3_bind_blob(handle, index, $0.baseAddress, length32) }
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection, sql: sql) }
    }

    private func tooBig(_ index: Int32) -> SQLiteError {
        SQLiteError(code: SQLITE_TOOBIG, message: "argument \(index) is too large to bind", sql: sql)
    }

    // MARK: Stepping

    /// Advances to the next row: true while a row is available, false when the statement is done.
    package func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: code, connection: connection, sql: sql)
        }
    }

    /// Makes the statement ready to run again and drops its bindings, so no bound value outlives its use.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Columns

    package var columnCount: Int { Int(sqlite3_column_count(handle)) }

    package func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    package func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    package func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    package func int(_ column: Int32) -> Int {
        Int(truncatingIfNeeded: int64(column))
    }

    package func bool(_ column: Int32) -> Bool {
        int64(column) != 0
    }

    package func optionalBool(_ column: Int32) -> Bool? {
        isNull(column) ? nil : bool(column)
    }

    package func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    package func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    package func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    package func blob(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
