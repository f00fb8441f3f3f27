import LifecycleSQL

/// What a `read` or `write` body of ``PostgresStore`` receives: the store's queries (``StoreAccess``) over
/// one PostgreSQL connection. It lives only on the owner thread of its connection, for the duration of one body.
final class PostgresAccess: StoreAccess {
    let connection: PostgresConnection

    init(connection: PostgresConnection) {
        self.connection = connection
    }
}
