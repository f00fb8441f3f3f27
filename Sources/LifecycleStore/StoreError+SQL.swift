import LifecycleSQL

extension StoreError {
    /// How the store reports a low-level failure to callers: as unavailability, with SQLite's own words and
    /// the SQL text (no bound values), so an operator sees what failed and the caller need not know SQL.
    init(_ error: SQLiteError) {
        self = .unavailable(error.description)
    }
}

extension StoreError {
    /// Keeps a ``StoreError`` as it is and turns an SQLite or PostgreSQL failure into ``unavailable(_:)``.
    init(converting error: any Error) {
        switch error {
        case let error as StoreError: self = error
        case let error as SQLiteError: self.init(error)
        case let error as PostgresError: self.init(error)
        case let error as OwnerThread.StartFailure: self.init(error)
        default: self = .unavailable(String(describing: type(of: error)))
        }
    }
}

extension StoreError {
    /// A PostgreSQL failure reaches callers as unavailability, with the server's words and the SQL text.
    init(_ error: PostgresError) {
        self = .unavailable(error.description)
    }
}

extension StoreError {
    /// An owner thread that could not be started: the store cannot serve without it.
    init(_ error: OwnerThread.StartFailure) {
        self = .unavailable(error.description)
    }
}
