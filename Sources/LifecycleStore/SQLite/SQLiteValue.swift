/// A value bound to a statement parameter. The five SQLite storage classes
/// (https://www.sqlite.org/datatype3.html §2).
enum SQLiteValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

/// A Swift value that binds to a statement parameter.
protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}

extension Int64: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Bool: SQLiteBindable {
    /// SQLite has no boolean class; 0 and 1 are the documented convention.
    var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension Double: SQLiteBindable {
    var sqliteValue: SQLiteValue { .real(self) }
}

extension String: SQLiteBindable {
    var sqliteValue: SQLiteValue { .text(self) }
}

extension [UInt8]: SQLiteBindable {
    var sqliteValue: SQLiteValue { .blob(self) }
}

extension SQLiteValue: SQLiteBindable {
    var sqliteValue: SQLiteValue { self }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
