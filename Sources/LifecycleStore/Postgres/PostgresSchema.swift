/// The PostgreSQL schema: ``StoreSchema`` in PostgreSQL's dialect, the same ordered steps with the same
/// versions and names as ``SQLiteSchema``.
enum PostgresSchema {
    static let migrations = StoreSchema.migrations(.postgres)
}
