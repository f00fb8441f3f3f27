import CSQLite
import LifecycleCore

extension ExternalSQLiteDatabase {
    /// Rows of a query, read one at a time: the reconciler streams an app's accounts without loading them.
    /// Values come back as text (`nil` for SQL NULL). Use from the thread that owns the database.
    public final class Rows {
        private var statement: OpaquePointer?
        /// Column names of the result, in order.
        public let columns: [String]

        init(statement: OpaquePointer) {
            self.statement = statement
            columns = (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
        }

        deinit { sqlite3_finalize(statement) }

        /// The next row, or nil when done.
        public func next() throws(Failure) -> [String?]? {
            guard let statement else { return nil }
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE {
                sqlite3_finalize(statement)
                self.statement = nil
                return nil
            }
            guard code == SQLITE_ROW else {
                let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(statement)))
                throw Failure(
                    code: code == SQLITE_BUSY ? .sqliteBusy : .sqliteStep, message: message,
                    isTransient: code == SQLITE_BUSY || code == SQLITE_LOCKED)
            }
            return (0..<Int32(columns.count)).map { index in
                sqlite3_column_type(statement, index) == SQLITE_NULL
                    ? nil : String(cString: sqlite3_column_text(statement, index))
            }
        }
    }

    /// Prepares `sql` (no parameters) and returns its rows.
    public func rows(_ sql: String) throws(Failure) -> Rows {
        guard let handle else { throw Failure(code: .sqliteOpen, message: "database is closed", isTransient: false) }
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw failure(.sqlitePrepare, prepared) }
        return Rows(statement: statement)
    }
}
