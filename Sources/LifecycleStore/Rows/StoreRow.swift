import LifecycleCore
import LifecycleSQL

/// A result row as the store's decoders read it, whatever database produced it. Each stored record is
/// decoded once (``NotificationRow``, ``AccountRow``, ``HistoryRow``, ``OutboxRow``, ``ErasureJobRow``) for
/// both SQLite and PostgreSQL; only SQL text and binding differ between the stores. Columns count from 0.
protocol StoreRow {
    /// The error each store throws for a stored value this build cannot read.
    associatedtype Failure: Error
    /// A stored value this build cannot read back (written by a newer build, or edited by hand). Names the
    /// table and column only: the value itself may be personal data.
    static func unreadable(_ table: String, _ column: String) -> Failure

    func isNull(_ column: Int) -> Bool
    func text(_ column: Int) -> String
    func optionalText(_ column: Int) -> String?
    func int64(_ column: Int) -> Int64
    func optionalInt64(_ column: Int) -> Int64?
    func int(_ column: Int) -> Int
    func bool(_ column: Int) -> Bool
    func optionalBool(_ column: Int) -> Bool?
    /// A BLOB (SQLite) or `bytea` (PostgreSQL) column; nil when NULL.
    func optionalBytes(_ column: Int) -> [UInt8]?
}

extension StoreRow {
    /// Milliseconds since the epoch, the form every time column has.
    func instant(_ column: Int) -> Instant { Instant(millisecondsSinceEpoch: int64(column)) }

    func optionalInstant(_ column: Int) -> Instant? {
        optionalInt64(column).map(Instant.init(millisecondsSinceEpoch:))
    }

    func optionalInt(_ column: Int) -> Int? { optionalInt64(column).map { Int(truncatingIfNeeded: $0) } }
}

extension SQLiteStatement: StoreRow {
    static func unreadable(_ table: String, _ column: String) -> SQLiteError { SQLiteError.unreadable(table, column) }
    func isNull(_ column: Int) -> Bool { isNull(Int32(column)) }
    func text(_ column: Int) -> String { text(Int32(column)) }
    func optionalText(_ column: Int) -> String? { optionalText(Int32(column)) }
    func int64(_ column: Int) -> Int64 { int64(Int32(column)) }
    func optionalInt64(_ column: Int) -> Int64? { optionalInt64(Int32(column)) }
    func int(_ column: Int) -> Int { int(Int32(column)) }
    func bool(_ column: Int) -> Bool { bool(Int32(column)) }
    func optionalBool(_ column: Int) -> Bool? { optionalBool(Int32(column)) }
    func optionalBytes(_ column: Int) -> [UInt8]? { isNull(Int32(column)) ? nil : blob(Int32(column)) }
}

extension PostgresRow: StoreRow {
    func optionalBytes(_ column: Int) -> [UInt8]? { bytea(column) }

    static func unreadable(_ table: String, _ column: String) -> PostgresError {
        PostgresError.unreadable(table, column)
    }
}
