import LifecycleCore

/// An application's own database, opened to erase one user's rows (an erasure target) — SQLite or
/// PostgreSQL behind the same three calls, so the erasure logic is written once.
public protocol ExternalDatabase: AnyObject {
    /// Runs `statements` in one transaction with `parameters` bound by name (`:sub`); returns rows changed.
    func executeInTransaction(_ statements: [String], parameters: [String: String]) throws -> Int
    /// Runs a query returning one integer (a count) in its first column; nil when it returns no row.
    func queryInteger(_ sql: String, parameters: [String: String]) throws -> Int64?
    func close()
}

/// What an external database failure tells the caller: a stable code, and whether retrying may help.
public protocol ExternalDatabaseFailure: Error {
    var code: FailureCode { get }
    var isTransient: Bool { get }
}

extension ExternalSQLiteDatabase: ExternalDatabase {}
extension ExternalSQLiteDatabase.Failure: ExternalDatabaseFailure {}
extension ExternalPostgresDatabase: ExternalDatabase {}
extension ExternalPostgresDatabase.Failure: ExternalDatabaseFailure {}
