import LifecycleSQL

/// What a `read` or `write` body of ``SQLiteStore`` receives: the store's queries (``StoreAccess``) over one
/// SQLite connection. It lives only on the owner thread of its connection, for the duration of one body.
final class SQLiteAccess: StoreAccess {
    /// Internal so tests can check connection settings from inside a body.
    let connection: SQLiteConnection

    init(connection: SQLiteConnection) {
        self.connection = connection
    }
}
