/// Rewrites SQL text outside its literals: string literals (`'…'`), quoted identifiers (`"…"`), `--` and
/// `/* */` comments and, for PostgreSQL, escape strings (`E'…'`, backslash escapes) and dollar-quoted strings (`$tag$ … $tag$`,
/// https://www.postgresql.org/docs/15/sql-syntax-lexical.html#SQL-SYNTAX-DOLLAR-QUOTING) are copied through
/// untouched; every other position is offered to a rewrite rule first. The parameter rewrites of both
/// databases (``PostgresNamedParameters``, ``SQLiteNumberedParameters``) are rules over this one walk, so
/// what counts as "inside a literal" is decided in one place.
///
/// Unterminated literals and comments run to the end of the text (the database then refuses the statement).
package struct SQLTextRewriter {
    /// The text being read.
    package let bytes: [UInt8]
    /// The next byte to read.
    package var index = 0
    /// What has been written so far.
    package var output: [UInt8] = []

    package init(_ text: String) {
        bytes = Array(text.utf8)
        output.reserveCapacity(bytes.count)
    }

    /// Walks the text; `rule` is called at each position outside literals and comments and either consumes
    /// bytes (advancing ``index`` and writing to ``output``) and answers true, or answers false to have the
    /// byte copied as it is.
    package mutating func rewrite(dollarQuotes: Bool, _ rule: (inout SQLTextRewriter) -> Bool) -> String {
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'") where dollarQuotes && startsEscapeString():
                output.append(byte)
                index += 1
                copyEscapeString()
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
            case UInt8(ascii: "$") where dollarQuotes && copyDollarQuoted():
                continue
            default:
                if !rule(&self) {
                    output.append(byte)
                    index += 1
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// PostgreSQL's escape string `E'…'` (https://www.postgresql.org/docs/15/sql-syntax-lexical.html
    /// #SQL-SYNTAX-STRINGS-ESCAPE): the quote follows an `E` or `e` that is not the end of a longer name, and
    /// inside it a backslash escapes the next byte, so `E'it\'s'` is one literal.
    ///
    /// This and the dollar quote's opening look at what has been *written*, the text the database will read:
    /// a rule may have replaced the bytes before (`:E'…'` is a parameter and a plain literal), and reading the
    /// output again must find the same literals.
    private func startsEscapeString() -> Bool {
        guard let last = output.last, last == UInt8(ascii: "E") || last == UInt8(ascii: "e") else { return false }
        return output.count < 2 || !Self.continuesIdentifier(output[output.count - 2])
    }

    /// Copies the rest of an escape string through its closing quote (or to the end).
    private mutating func copyEscapeString() {
        while index < bytes.count {
            let byte = bytes[index]
            output.append(byte)
            index += 1
            if byte == UInt8(ascii: "\\"), index < bytes.count {
                output.append(bytes[index])
                index += 1
            } else if byte == UInt8(ascii: "'") {
                return
            }
        }
    }

    /// `$tag$ … $tag$` (the tag possibly empty, never starting with a digit: `$1` is a parameter). A `$` that
    /// continues an identifier (`note$$`) opens nothing: PostgreSQL reads it as part of the name.
    private mutating func copyDollarQuoted() -> Bool {
        guard output.last.map(Self.continuesIdentifier) != true else { return false }
        var end = index + 1
        while end < bytes.count, Self.isNamePart(bytes[end]) { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "$"), index + 1 == end || Self.isNameStart(bytes[index + 1])
        else { return false }
        let tag = Array(bytes[index...end])
        output.append(contentsOf: tag)
        index = end + 1
        copy(through: tag)
        return true
    }

    /// Copies bytes up to and including the next `terminator` (or to the end).
    private mutating func copy(through terminator: [UInt8]) {
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

    /// The byte at `offset` from ``index``, if any.
    package func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    package static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    package static func isNameStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_")
    }

    package static func isNamePart(_ byte: UInt8) -> Bool { isNameStart(byte) || isDigit(byte) }

    /// Whether PostgreSQL reads `byte` after a name as more of the same token: letters, digits, `_`, `$` and
    /// every non-ASCII byte (https://www.postgresql.org/docs/15/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS).
    package static func continuesIdentifier(_ byte: UInt8) -> Bool {
        isNamePart(byte) || byte == UInt8(ascii: "$") || byte >= 0x80
    }
}
