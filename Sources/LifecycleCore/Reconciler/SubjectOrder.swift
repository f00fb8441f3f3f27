/// The one order of subjects everywhere records are merged or paged: ascending UTF-8 bytes, which is
/// SQLite's default `BINARY` collation, PostgreSQL's `COLLATE "C"` and `LC_ALL=C sort`. Swift's `<` on
/// `String` compares by Unicode canonical equivalence, which no database index does.
public enum SubjectOrder {
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
