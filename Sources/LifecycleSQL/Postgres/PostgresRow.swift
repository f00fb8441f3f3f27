/// One row of a result, copied out of libpq's `PGresult` in text format, so the result can be freed at once.
/// Accessors decode the text forms the server writes (https://www.postgresql.org/docs/15/datatype.html).
package struct PostgresRow: Sendable {
    package let values: [String?]

    package func isNull(_ column: Int) -> Bool { values[column] == nil }

    package func text(_ column: Int) -> String { values[column] ?? "" }

    package func optionalText(_ column: Int) -> String? { values[column] }

    package func int64(_ column: Int) -> Int64 { optionalInt64(column) ?? 0 }

    package func optionalInt64(_ column: Int) -> Int64? { values[column].flatMap { Int64($0) } }

    package func int(_ column: Int) -> Int { Int(truncatingIfNeeded: int64(column)) }

    /// `boolean` output is `t` or `f`.
    package func bool(_ column: Int) -> Bool { values[column] == "t" }

    package func optionalBool(_ column: Int) -> Bool? { values[column].map { $0 == "t" } }

    /// `bytea` in the hex output format (`bytea_output = hex`, the default, set on every connection).
    package func bytea(_ column: Int) -> [UInt8]? {
        guard let text = values[column] else { return nil }
        let hex = Array(text.utf8.dropFirst(2))
        guard hex.count.isMultiple(of: 2) else { return nil }
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = 0
        while index < hex.count {
            guard let high = nibble(hex[index]), let low = nibble(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
