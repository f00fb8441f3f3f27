/// Configured SQL names its values (`:sub`), as the `sqlite` targets do; PostgreSQL numbers them (`$1`,
/// https://www.postgresql.org/docs/15/sql-expressions.html#SQL-EXPRESSIONS-PARAMETERS-POSITIONAL). This
/// rewrites one into the other so the same statements work on both, bound, never interpolated.
///
/// A name is `:` then a letter or `_`, then letters, digits or `_`. Not a name: `::` casts, and anything
/// inside a string literal (`'…'`, `E'…'`), a quoted identifier (`"…"`), a dollar-quoted string or a comment.
package struct PostgresNamedParameters: Sendable, Hashable {
    /// The statement with `$1`, `$2`, … in place of the names.
    package var sql: String
    /// The names in the order of their numbers (`names[0]` is `$1`); a name used twice has one number.
    package var names: [String]

    package init(_ text: String) {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var names: [String] = []
        var index = 0
        func isNameStart(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
        func isNamePart(_ byte: UInt8) -> Bool {
            isNameStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        /// Copies bytes up to and including the next `terminator`.
        func copy(through terminator: [UInt8]) {
            while index < bytes.count {
                if bytes[index...].starts(with: terminator) {
                    output.append(contentsOf: terminator)
                    index += terminator.count
                    return
                }
                output.append(bytes[index])
                index += 1
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                output.append(byte)
                index += 1
                copy(through: [byte])
            case UInt8(ascii: "-") where bytes[index...].starts(with: Array("--".utf8)):
                copy(through: [UInt8(ascii: "\n")])
            case UInt8(ascii: "/") where bytes[index...].starts(with: Array("/*".utf8)):
                output.append(contentsOf: Array("/*".utf8))
                index += 2
                copy(through: Array("*/".utf8))
            case UInt8(ascii: "$"):
                // `$tag$ … $tag$` (tag possibly empty); a `$` followed by a digit is a positional parameter.
                var end = index + 1
                while end < bytes.count, isNamePart(bytes[end]) { end += 1 }
                if end < bytes.count, bytes[end] == UInt8(ascii: "$"),
                    index + 1 == end || isNameStart(bytes[index + 1])
                {
                    let tag = Array(bytes[index...end])
                    output.append(contentsOf: tag)
                    index = end + 1
                    copy(through: tag)
                } else {
                    output.append(byte)
                    index += 1
                }
            case UInt8(ascii: ":"):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ":") {
                    output.append(contentsOf: [byte, byte])
                    index += 2
                } else if index + 1 < bytes.count, isNameStart(bytes[index + 1]) {
                    var end = index + 1
                    while end < bytes.count, isNamePart(bytes[end]) { end += 1 }
                    let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                    let number: Int
                    if let existing = names.firstIndex(of: name) {
                        number = existing + 1
                    } else {
                        names.append(name)
                        number = names.count
                    }
                    output.append(contentsOf: Array("$\(number)".utf8))
                    index = end
                } else {
                    output.append(byte)
                    index += 1
                }
            default:
                output.append(byte)
                index += 1
            }
        }
        sql = String(decoding: output, as: UTF8.self)
        self.names = names
    }
}
