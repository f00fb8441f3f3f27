/// A value bound to a statement parameter. The five SQLite storage classes
/// (https://www.sqlite.org/datatype3.html §2).
package enum SQLiteValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

/// A Swift value that binds to a statement parameter.
package protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}

extension Int64: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Bool: SQLiteBindable {
    /// SQLite has no boolean class; 0 and 1 are the documented convention.
    package var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension Double: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .real(self) }
}

extension String: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .text(self) }
}

extension [UInt8]: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .blob(self) }
}

extension SQLiteValue: SQLiteBindable {
    package var sqliteValue: SQLiteValue { self }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
