/// The column types and table options of ``StoreSchema`` in each database's words.
extension SQLDialect {
    /// A table's id: SQLite's `INTEGER PRIMARY KEY` is the rowid (https://www.sqlite.org/lang_createtable.html
    /// #rowid); PostgreSQL's identity column is its standard equivalent
    /// (https://www.postgresql.org/docs/15/sql-createtable.html).
    var id: String {
        switch self {
        case .sqlite: "INTEGER PRIMARY KEY"
        case .postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        }
    }

    /// Text compared and ordered by bytes (keys, `sub`, state names): SQLite's default BINARY collation;
    /// PostgreSQL's `"C"` collation, whatever the database's locale.
    var orderedText: String {
        switch self {
        case .sqlite: "TEXT"
        case .postgres: "TEXT COLLATE \"C\""
        }
    }

    var bytes: String {
        switch self {
        case .sqlite: "BLOB"
        case .postgres: "BYTEA"
        }
    }

    /// A flag column. SQLite has no boolean type: 0 and 1, held to them by a CHECK
    /// (https://www.sqlite.org/datatype3.html §2.1).
    func flag(_ column: String, notNull: Bool = false) -> String {
        let required = notNull ? " NOT NULL" : ""
        switch self {
        case .sqlite: return "INTEGER\(required) CHECK (\(column) IN (0, 1))"
        case .postgres: return "BOOLEAN\(required)"
        }
    }

    /// After the closing parenthesis of a table keyed by something other than an id: on SQLite the key is
    /// then the table's b-tree (https://www.sqlite.org/withoutrowid.html); PostgreSQL has no rowid.
    var withoutRowID: String {
        switch self {
        case .sqlite: " WITHOUT ROWID"
        case .postgres: ""
        }
    }

    /// The current time in milliseconds since the epoch, as an integer, inside a migration.
    var nowMilliseconds: String {
        switch self {
        case .sqlite: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        case .postgres: "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        }
    }
}
