import CLibPQ
import Foundation
import Glibc

/// One libpq connection with its prepared-statement cache.
///
/// `@unchecked Sendable` because a `PGconn` must not be used by two threads at once
/// (https://www.postgresql.org/docs/15/libpq-threading.html): a connection is opened on the caller's thread
/// and then handed over to exactly one owner thread of the pool, which is the only code that touches it
/// until it is closed. The hand-over is ordered by the thread start.
package final class PostgresConnection: @unchecked Sendable {
    private let url: String
    private let schema: String?
    private let connectTimeoutSeconds: Int
    private var handle: OpaquePointer?
    /// SQL text to the name of its server-side prepared statement. Only constant SQL belongs here: values
    /// are always bound, never interpolated, so the cache stays small.
    private var statements: [String: String] = [:]
    /// The cancel request ``cancel(when:)`` registered, forgotten and freed before the session closes.
    private var cancelRegistration: (interrupt: QueryInterrupt, token: Int, request: CancelRequest)?

    /// Connects to `url` (a `postgres://` or `postgresql://` URI, https://www.postgresql.org/docs/15/libpq-connect.html
    /// §34.1.1). TLS, certificates and timeouts follow the URI's own parameters (`sslmode=verify-full` ...).
    ///
    /// - Parameter schema: when given, every statement resolves names in that schema first (`search_path`).
    package init(url: String, schema: String?, connectTimeoutSeconds: Int) throws(PostgresError) {
        self.url = url
        self.schema = schema
        self.connectTimeoutSeconds = connectTimeoutSeconds
        try connect()
    }

    deinit {
        close()
    }

    /// Opens a fresh session: used at start and to replace a broken one (a new session loses prepared
    /// statements and settings, so both are set up again here).
    private func connect() throws(PostgresError) {
        close()
        // Later entries override earlier ones; `dbname` expands the URI, so the URI can override the
        // timeout and the application name but not the encoding this code relies on.
        let parameters: [(String, String)] = [
            ("connect_timeout", String(connectTimeoutSeconds)),
            ("fallback_application_name", "lifecycle"),
            ("dbname", url),
            ("client_encoding", "UTF8"),
        ]
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            for pointer in keywords + values { free(pointer) }
        }
        let connection = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordList in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valueList in
                PQconnectdbParams(keywordList.baseAddress, valueList.baseAddress, 1)
            }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "out of memory"
            PQfinish(connection)
            throw PostgresError(
                sqlState: "08001",
                message: "cannot connect to PostgreSQL: "
                    + message.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
        handle = connection
        do {
            _ = try query("SELECT set_config('bytea_output', 'hex', false)")
            // NOTICEs (`DROP ... CASCADE`, `IF NOT EXISTS` skips) would go to stderr through libpq's default
            // notice processor; warnings and errors still do.
            _ = try query("SELECT set_config('client_min_messages', 'warning', false)")
            if let schema {
                _ = try query("SELECT set_config('search_path', $1, false)", ["\"\(schema)\""])
            }
        } catch {
            close()
            throw error
        }
    }

    /// A `PGcancel`: its own copy of what a cancel request needs, which libpq lets another thread use while
    /// the session is busy, and after it closed (https://www.postgresql.org/docs/15/libpq-cancel.html). Freed
    /// with the last reference, so a request still being sent keeps it.
    final class CancelRequest: @unchecked Sendable {
        private let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { PQfreeCancel(pointer) }

        /// On a thread of its own: `PQcancel` opens a connection to the server and waits for its answer, which
        /// must not hold up whoever raised the stop (serve's shutdown).
        func sendInBackground() {
            Thread { [self] in
                var message = [CChar](repeating: 0, count: 256)
                _ = PQcancel(pointer, &message, Int32(message.count))
            }.start()
        }
    }

    /// When `interrupt` is raised, the server is asked to cancel whatever this session runs then.
    package func cancel(when interrupt: QueryInterrupt) {
        guard let handle, cancelRegistration == nil, let pointer = PQgetCancel(handle) else { return }
        let request = CancelRequest(pointer)
        cancelRegistration = (interrupt, interrupt.whenRaised { request.sendInBackground() }, request)
    }

    /// Closes the session and forgets its prepared statements.
    package func close() {
        if let registration = cancelRegistration {
            registration.interrupt.forget(registration.token)
            cancelRegistration = nil
        }
        statements.removeAll()
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// True when the session is gone (server restart, network failure): a new one is needed.
    package var isBroken: Bool {
        guard let handle else { return true }
        return PQstatus(handle) != CONNECTION_OK
    }

    /// Replaces a broken session by a new one.
    package func reconnect() throws(PostgresError) {
        try connect()
    }

    /// True when a transaction is open and has failed (every statement until ROLLBACK is refused).
    package var isInFailedTransaction: Bool {
        guard let handle else { return false }
        return PQtransactionStatus(handle) == PQTRANS_INERROR
    }

    private func openHandle(sql: String?) throws(PostgresError) -> OpaquePointer {
        guard let handle else { throw PostgresError(sqlState: "08003", message: "connection is closed", sql: sql) }
        return handle
    }

    // MARK: Statements

    /// Runs a statement without parameters through the simple query protocol and returns its command tag
    /// (`COMMIT`, or `ROLLBACK` when a failed transaction was asked to commit). For transaction control and
    /// schema scripts (several `;`-separated statements) only.
    @discardableResult
    package func execute(_ sql: String) throws(PostgresError) -> String {
        let handle = try openHandle(sql: sql)
        guard let result = PQexec(handle, sql) else {
            throw PostgresError(result: nil, connection: handle, sql: sql)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgresError(result: result, connection: handle, sql: sql)
        }
        return PQcmdStatus(result).map { String(cString: $0) } ?? ""
    }

    /// Runs one parameterised statement (prepared once per session, https://www.postgresql.org/docs/15/sql-prepare.html)
    /// and returns its rows. Parameter types are inferred by the server from the statement; SQL that leaves
    /// a parameter's type open casts it (`$1::bigint`).
    package func query(_ sql: String, _ arguments: [any PostgresBindable] = []) throws(PostgresError) -> [PostgresRow] {
        try query(sql, values: arguments.lazy.map(\.postgresValue))
    }

    /// ``query(_:_:)`` over values already encoded (a lazy view: no array of arguments is built).
    package func query(_ sql: String, values: some Collection<PostgresValue>) throws(PostgresError) -> [PostgresRow] {
        try execute(prepared: sql, values) { result in
            let rowCount = PQntuples(result)
            let columnCount = PQnfields(result)
            var rows: [PostgresRow] = []
            rows.reserveCapacity(Int(rowCount))
            for row in 0..<rowCount {
                var values: [String?] = []
                values.reserveCapacity(Int(columnCount))
                for column in 0..<columnCount {
                    if PQgetisnull(result, row, column) != 0 {
                        values.append(nil)
                    } else {
                        values.append(String(cString: PQgetvalue(result, row, column)))
                    }
                }
                rows.append(PostgresRow(values: values))
            }
            return rows
        }
    }

    /// Runs one parameterised statement and returns how many rows it changed (`PQcmdTuples`: the count of an
    /// `INSERT`, `UPDATE`, `DELETE` or `MERGE`, 0 for other statements).
    package func command(_ sql: String, _ arguments: [any PostgresBindable] = []) throws(PostgresError) -> Int {
        try command(sql, values: arguments.lazy.map(\.postgresValue))
    }

    /// ``command(_:_:)`` over values already encoded.
    package func command(_ sql: String, values: some Collection<PostgresValue>) throws(PostgresError) -> Int {
        try execute(prepared: sql, values) { result in
            PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        }
    }

    /// Runs `sql` as a prepared statement with `values` in text format and reads its successful result.
    private func execute<T>(
        prepared sql: String, _ values: some Collection<PostgresValue>, _ read: (OpaquePointer) -> T
    ) throws(PostgresError) -> T {
        let handle = try openHandle(sql: sql)
        let name = try prepared(sql, handle: handle)
        let cValues: [UnsafeMutablePointer<CChar>?] = values.map { value in
            switch value {
            case .text(let text): strdup(text)
            case .null: nil
            }
        }
        defer {
            for pointer in cValues { free(pointer) }
        }
        let result = cValues.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
            PQexecPrepared(handle, name, Int32(values.count), values.baseAddress, nil, nil, 0)
        }
        guard let result else { throw PostgresError(result: nil, connection: handle, sql: sql) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            throw PostgresError(result: result, connection: handle, sql: sql)
        }
        return read(result)
    }

    /// Runs a statement without parameters through the simple query protocol and returns its rows: for what
    /// cannot be prepared, such as `FETCH` from a cursor.
    package func simpleQuery(_ sql: String) throws(PostgresError) -> [PostgresRow] {
        let handle = try openHandle(sql: sql)
        guard let result = PQexec(handle, sql) else { throw PostgresError(result: nil, connection: handle, sql: sql) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            throw PostgresError(result: result, connection: handle, sql: sql)
        }
        return (0..<PQntuples(result)).map { row in
            PostgresRow(
                values: (0..<PQnfields(result)).map { column in
                    PQgetisnull(result, row, column) != 0 ? nil : String(cString: PQgetvalue(result, row, column))
                })
        }
    }

    /// The column names of a statement's result, without running it (`PQdescribePrepared`).
    package func columns(of sql: String) throws(PostgresError) -> [String] {
        let handle = try openHandle(sql: sql)
        let name = try prepared(sql, handle: handle)
        guard let result = PQdescribePrepared(handle, name) else {
            throw PostgresError(result: nil, connection: handle, sql: sql)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw PostgresError(result: result, connection: handle, sql: sql)
        }
        return (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) }
    }

    /// The first column of the first row, if any.
    package func queryInt64(_ sql: String, _ arguments: [any PostgresBindable] = []) throws(PostgresError) -> Int64? {
        try query(sql, arguments).first?.optionalInt64(0)
    }

    package func queryText(_ sql: String, _ arguments: [any PostgresBindable] = []) throws(PostgresError) -> String? {
        try query(sql, arguments).first?.optionalText(0)
    }

    private func prepared(_ sql: String, handle: OpaquePointer) throws(PostgresError) -> String {
        if let name = statements[sql] { return name }
        let name = "lifecycle_\(statements.count)"
        guard let result = PQprepare(handle, name, sql, 0, nil) else {
            throw PostgresError(result: nil, connection: handle, sql: sql)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw PostgresError(result: result, connection: handle, sql: sql)
        }
        statements[sql] = name
        return name
    }
}
