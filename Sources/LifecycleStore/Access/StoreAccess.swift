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

    /// Runs `body` (a claim's `ORDER BY … LIMIT` over a pinned index) under the dialect's index-order walk
    /// (``SQLDialect/indexOrderWalk``), then undoes the settings. Inside a transaction: a body that throws
    /// leaves them to the transaction's end, which is where `SET LOCAL` ends anyway.
    func walkingIndexOrder<T>(_ body: () throws -> T) throws -> T {
        let walk = dialect.indexOrderWalk
        for statement in walk.enable { try connection.run(statement) }
        let result = try body()
        for statement in walk.restore { try connection.run(statement) }
        return result
    }

    /// Every database failure reaches callers as ``StoreError``: they never see SQL types.
    func sql<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(converting: error)
        }
    }
}
