import LifecycleSQL

/// One database connection as the store's access layer uses it, whatever the database: statements written
/// once in the SQL both speak (``SQLDialect``), arguments bound, rows handed to the shared decoders
/// (``StoreRow``). The SQLite and PostgreSQL connections of `LifecycleSQL` conform; errors stay theirs
/// (``SQLiteError``, ``PostgresError``) and reach callers as ``StoreError`` through ``StoreAccess``.
protocol StoreConnection {
    associatedtype Row: StoreRow

    static var dialect: SQLDialect { get }

    /// Runs one statement and hands each row to `body`. A row is valid only during its call.
    func fetchEach(_ sql: String, _ arguments: [any SQLBindable], _ body: (Row) throws -> Void) throws

    /// Runs one statement and decodes its first row, if any; the statement is not stepped further.
    func fetchOne<T>(_ sql: String, _ arguments: [any SQLBindable], _ decode: (Row) throws -> T) throws -> T?

    /// Runs one statement whose rows, if any, are not needed.
    func run(_ sql: String, _ arguments: [any SQLBindable]) throws

    /// A failure of the store's own making (a row an `INSERT … RETURNING` did not return), in the error type of
    /// the connection so it reads like the database's own failures.
    static func failure(_ message: String) -> any Error

    /// A unique or other constraint that should have decided did not (SQLite `SQLITE_CONSTRAINT`,
    /// PostgreSQL SQLSTATE 23505).
    static func constraintViolation(_ message: String) -> any Error

    /// A lock the store takes kept changing hands (PostgreSQL SQLSTATE 55P03, "lock not available").
    static func lockNotAvailable(_ message: String) -> any Error
}

extension StoreConnection {
    func run(_ sql: String) throws { try run(sql, []) }

    func fetchOne<T>(_ sql: String, _ decode: (Row) throws -> T) throws -> T? {
        try fetchOne(sql, [], decode)
    }

    /// Every row decoded, in order.
    func fetchAll<T>(_ sql: String, _ arguments: [any SQLBindable] = [], _ decode: (Row) throws -> T) throws -> [T] {
        var rows: [T] = []
        try fetchEach(sql, arguments) { row in rows.append(try decode(row)) }
        return rows
    }

    /// How many rows the statement returned: with `RETURNING 1`, how many it changed.
    func fetchCount(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> Int {
        var count = 0
        try fetchEach(sql, arguments) { _ in count += 1 }
        return count
    }

    /// The first column of the first row, if any and not NULL.
    func fetchInt64(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> Int64? {
        try fetchOne(sql, arguments) { $0.optionalInt64(0) } ?? nil
    }

    func fetchText(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> String? {
        try fetchOne(sql, arguments) { $0.optionalText(0) } ?? nil
    }
}

extension SQLiteConnection: StoreConnection {
    static var dialect: SQLDialect { .sqlite }

    /// Steps the cached statement in place: rows are read from SQLite's buffers, never copied out.
    func fetchEach(_ sql: String, _ arguments: [any SQLBindable], _ body: (SQLiteStatement) throws -> Void) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(count: arguments.count) { arguments[$0].sqliteValue }
        while try statement.step() { try body(statement) }
    }

    func fetchOne<T>(
        _ sql: String, _ arguments: [any SQLBindable], _ decode: (SQLiteStatement) throws -> T
    ) throws -> T? {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(count: arguments.count) { arguments[$0].sqliteValue }
        return try statement.step() ? try decode(statement) : nil
    }

    func run(_ sql: String, _ arguments: [any SQLBindable]) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(count: arguments.count) { arguments[$0].sqliteValue }
        while try statement.step() {}
    }

    static func failure(_ message: String) -> any Error { SQLiteError(code: 1, message: message) }

    static func constraintViolation(_ message: String) -> any Error { SQLiteError.constraintViolation(message) }

    static func lockNotAvailable(_ message: String) -> any Error { SQLiteError.busy(message) }
}

extension PostgresConnection: StoreConnection {
    static var dialect: SQLDialect { .postgres }

    /// libpq hands back the whole result; its rows are copied out once and the result freed at once.
    func fetchEach(_ sql: String, _ arguments: [any SQLBindable], _ body: (PostgresRow) throws -> Void) throws {
        for row in try query(sql, values: arguments.lazy.map(\.postgresValue)) { try body(row) }
    }

    func fetchOne<T>(
        _ sql: String, _ arguments: [any SQLBindable], _ decode: (PostgresRow) throws -> T
    ) throws -> T? {
        try query(sql, values: arguments.lazy.map(\.postgresValue)).first.map(decode)
    }

    func run(_ sql: String, _ arguments: [any SQLBindable]) throws {
        _ = try command(sql, values: arguments.lazy.map(\.postgresValue))
    }

    static func failure(_ message: String) -> any Error { PostgresError(message: message) }

    static func constraintViolation(_ message: String) -> any Error {
        PostgresError(sqlState: "23505", message: message)
    }

    static func lockNotAvailable(_ message: String) -> any Error { PostgresError(sqlState: "55P03", message: message) }
}
