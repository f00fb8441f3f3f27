/// The SQLite schema: ``StoreSchema`` in SQLite's dialect.
enum SQLiteSchema {
    static let migrations = StoreSchema.migrations(.sqlite)
}
