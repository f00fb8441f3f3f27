/// A Swift value that binds to a parameter of either database: what the store's statements, written once for
/// both, take as arguments. Each database keeps its own encoding (``SQLiteBindable``: the five storage
/// classes, booleans as 0/1; ``PostgresBindable``: libpq's text format, `bytea` in hex), so a value binds
/// exactly as it did when each store had its own statements.
package protocol SQLBindable: SQLiteBindable, PostgresBindable {}

extension Int64: SQLBindable {}
extension Int: SQLBindable {}
extension Bool: SQLBindable {}
extension String: SQLBindable {}
extension [UInt8]: SQLBindable {}
extension Optional: SQLBindable where Wrapped: SQLBindable {}
