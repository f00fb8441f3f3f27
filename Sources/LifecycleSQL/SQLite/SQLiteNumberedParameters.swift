/// Statements written once for both databases number their parameters as PostgreSQL does (`$1`, and `$1::bigint`
/// where PostgreSQL cannot infer a parameter's type from the statement alone,
/// https://www.postgresql.org/docs/15/sql-expressions.html#SQL-EXPRESSIONS-PARAMETERS-POSITIONAL). SQLite reads
/// `$1` as a parameter *named* "$1", numbered in order of first appearance, so `$2 … $1` would bind the wrong
/// values; its numbered form is `?1` (https://www.sqlite.org/lang_expr.html#parameters). This rewrites one into
/// the other, dropping the casts (SQLite's columns carry the type), so both bind argument n to parameter n.
///
/// Nothing inside a string literal (`'…'`), a quoted identifier (`"…"`) or a comment is touched. Text without
/// `$` comes back unchanged, so statements written in SQLite's own form (`?`) keep working.
package enum SQLiteNumberedParameters {
    package static func sqliteForm(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        func isNamePart(_ byte: UInt8) -> Bool {
            isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "_")
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
            case UInt8(ascii: "$") where index + 1 < bytes.count && isDigit(bytes[index + 1]):
                output.append(UInt8(ascii: "?"))
                index += 1
                while index < bytes.count, isDigit(bytes[index]) {
                    output.append(bytes[index])
                    index += 1
                }
                // `::type`: PostgreSQL's cast of the parameter, meaningless to SQLite.
                if bytes[index...].starts(with: Array("::".utf8)) {
                    index += 2
                    while index < bytes.count, isNamePart(bytes[index]) { index += 1 }
                }
            default:
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
