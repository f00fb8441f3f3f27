/// The one order of subjects everywhere records are merged or paged: ascending UTF-8 bytes, which is
/// SQLite's default `BINARY` collation, PostgreSQL's `COLLATE "C"` and `LC_ALL=C sort`. Swift's `<` on
/// `String` compares by Unicode canonical equivalence, which no database index does.
public enum SubjectOrder {
    /// Compares the contiguous UTF-8 storage of native strings directly (the merge compares a million pairs a
    /// night); bridged strings without contiguous storage take the generic path. Same answer either way.
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in precedes(left, right) }
        }
        if let fast, let result = fast { return result }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    private static func precedes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(left.count, right.count)
        var index = 0
        while index < common {
            let (a, b) = (left[index], right[index])
            if a != b { return a < b }
            index += 1
        }
        return left.count < right.count
    }
}
