import LifecycleCore

/// An application's own PostgreSQL database, opened only to erase one user's rows (an erasure job's
/// `postgres` target) or to read its accounts for the reconciler: the twin of ``ExternalSQLiteDatabase``.
/// Not the service's store: no migrations, no schema, one plain session.
///
/// Statements name their values like the SQLite ones (`:sub`); they are rewritten to PostgreSQL's numbered
/// parameters (``PostgresNamedParameters``) and bound, never interpolated. Errors carry a stable code, the
/// server's primary message and the SQLSTATE, never a bound value nor the server's DETAIL (which quotes key
/// values), nor the URL (which may hold a password).
///
/// Use it from one thread at a time: open, run, close. It is not `Sendable`.
public final class ExternalPostgresDatabase {
    /// Why an operation failed: `postgres_connect`, `postgres_statement` or `postgres_parameter`, plus the
    /// server's words.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var code: FailureCode
        public var message: String
        /// True for what a later attempt may not meet: a broken or refused connection (SQLSTATE class 08),
        /// a serialization failure or deadlock (class 40), a server short of resources (53) or shutting down
        /// (57P01–57P03), a lock not available (55P03).
        public var isTransient: Bool

        public var description: String { "\(code): \(message)" }

        init(code: FailureCode, _ error: PostgresError) {
            self.code = code
            message = error.description
            let state = error.sqlState ?? ""
            isTransient =
                error.isConnectionFailure || state.hasPrefix("40") || state.hasPrefix("53")
                || ["57P01", "57P02", "57P03", "55P03"].contains(state)
        }

        init(code: FailureCode, message: String, isTransient: Bool) {
            self.code = code
            self.message = message
            self.isTransient = isTransient
        }
    }

    let connection: PostgresConnection

    /// Connects to `url` (libpq's URI form; TLS as its `sslmode` says).
    public init(url: String, connectTimeoutSeconds: Int = 5) throws(Failure) {
        do {
            connection = try PostgresConnection(url: url, schema: nil, connectTimeoutSeconds: connectTimeoutSeconds)
        } catch {
            throw Failure(code: .postgresConnect, error)
        }
    }

    public func close() { connection.close() }

    /// Sends the server a cancel request for the statement running when `interrupt` is raised (a stop while
    /// a records query still sorts before its first row); the statement then fails with `57014`.
    public func stop(when interrupt: QueryInterrupt) { connection.cancel(when: interrupt) }

    /// Runs `statements` in one transaction (all or nothing) with `parameters` bound by name; returns the total
    /// rows they changed.
    public func executeInTransaction(_ statements: [String], parameters: [String: String]) throws(Failure) -> Int {
        _ = try run { () throws(PostgresError) in try connection.execute("BEGIN") }
        var changed = 0
        do {
            for sql in statements {
                let (text, values) = try Self.bind(sql, parameters)
                changed += try run { () throws(PostgresError) in try connection.command(text, values) }
            }
            _ = try run { () throws(PostgresError) in try connection.execute("COMMIT") }
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        return changed
    }

    /// Runs a query that returns one integer (a count) in its first column; nil when it returns no row or NULL.
    public func queryInteger(_ sql: String, parameters: [String: String]) throws(Failure) -> Int64? {
        let (text, values) = try Self.bind(sql, parameters)
        return try run { () throws(PostgresError) in try connection.queryInt64(text, values) }
    }

    /// `VACUUM` each of `tables` (outside a transaction, https://www.postgresql.org/docs/15/sql-vacuum.html):
    /// the erased rows' old versions leave the heap, so their bytes are no longer in live pages (WAL
    /// segments, replicas and base backups keep theirs until they expire).
    /// - Returns: what was done, for the step's evidence.
    public func vacuum(_ tables: [String]) throws(Failure) -> String {
        for table in tables {
            guard Self.isTableName(table) else {
                throw Failure(code: .postgresParameter, message: "not a table name", isTransient: false)
            }
            let quoted = table.split(separator: ".").map { "\"\($0)\"" }.joined(separator: ".")
            _ = try run { () throws(PostgresError) in try connection.execute("VACUUM \(quoted)") }
        }
        return "VACUUM " + tables.joined(separator: ", ")
    }

    /// A table name `vacuum` accepts: `name` or `schema.name`, each an ASCII letter or `_` then letters,
    /// digits or `_` (so quoting it can never change the statement).
    public static func isTableName(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return false }
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, part.utf8.count <= 63 else { return false }
            func letter(_ byte: UInt8) -> Bool {
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
            }
            return letter(first) && part.utf8.allSatisfy { letter($0) || (0x30...0x39).contains($0) }
        }
    }

    /// The column names a query returns, without running it.
    public func columns(of sql: String) throws(Failure) -> [String] {
        try run { () throws(PostgresError) in try connection.columns(of: sql) }
    }

    /// The rows of `sql` (no parameters) through a cursor in a read-only transaction, `pageSize` at a time:
    /// an app's whole table is never in memory at once.
    public func rows(_ sql: String, pageSize: Int) throws(Failure) -> Rows {
        try run { () throws(PostgresError) in
            try connection.execute("BEGIN TRANSACTION READ ONLY")
            do throws(PostgresError) {
                try connection.execute("DECLARE lifecycle_rows NO SCROLL CURSOR FOR \(sql)")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
        return Rows(database: self, pageSize: max(1, pageSize))
    }

    /// Rows of a query, read one at a time. Values come back as text (`nil` for SQL NULL).
    public final class Rows {
        private let database: ExternalPostgresDatabase
        private let pageSize: Int
        private var page: [PostgresRow] = []
        private var position = 0
        private var finished = false

        init(database: ExternalPostgresDatabase, pageSize: Int) {
            self.database = database
            self.pageSize = pageSize
        }

        /// The next row, or nil when done (the cursor and its transaction are closed then).
        public func next() throws(Failure) -> [String?]? {
            if position == page.count {
                guard !finished else { return nil }
                let connection = database.connection
                let size = pageSize
                do {
                    page = try connection.simpleQuery("FETCH FORWARD \(size) FROM lifecycle_rows")
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    finished = true
                    throw Failure(code: .postgresStatement, error)
                }
                position = 0
                if page.isEmpty {
                    finished = true
                    _ = try? connection.execute("CLOSE lifecycle_rows")
                    _ = try? connection.execute("COMMIT")
                    return nil
                }
            }
            defer { position += 1 }
            return page[position].values
        }
    }

    private func run<T>(_ body: () throws(PostgresError) -> T) throws(Failure) -> T {
        do {
            return try body()
        } catch {
            throw Failure(code: .postgresStatement, error)
        }
    }

    /// `sql` with numbered parameters and the values in their order.
    package static func bind(_ sql: String, _ parameters: [String: String]) throws(Failure) -> (
        String, [any PostgresBindable]
    ) {
        let named = PostgresNamedParameters(sql)
        var values: [any PostgresBindable] = []
        for name in named.names {
            guard let value = parameters[name] else {
                throw Failure(code: .postgresParameter, message: "no value for :\(name)", isTransient: false)
            }
            values.append(value)
        }
        return (named.sql, values)
    }
}
