import LifecycleSQL

/// The store's queries over one connection: what a `read` or `write` body receives. Every query is written
/// once, in extensions of this protocol (`StoreAccess+….swift`), over ``StoreConnection``; ``SQLiteAccess``
/// and ``PostgresAccess`` only say which connection they hold. An access value lives only on the owner thread
/// of its connection, for the duration of one body.
protocol StoreAccess: StoreWriter {
    associatedtype Connection: StoreConnection
    var connection: Connection { get }
}

extension StoreAccess {
    typealias Row = Connection.Row

    var dialect: SQLDialect { Connection.dialect }

    /// Every database failure reaches callers as ``StoreError``: they never see SQL types.
    func sql<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(converting: error)
        }
    }
}
