/// Configured SQL names its values (`:sub`), as the `sqlite` targets do; PostgreSQL numbers them (`$1`,
/// https://www.postgresql.org/docs/15/sql-expressions.html#SQL-EXPRESSIONS-PARAMETERS-POSITIONAL). This
/// rewrites one into the other so the same statements work on both, bound, never interpolated.
///
/// A name is `:` then a letter or `_`, then letters, digits or `_`. Not a name: `::` casts, and anything
/// inside a string literal (`'…'`, `E'…'`), a quoted identifier (`"…"`), a dollar-quoted string or a comment.
/// A number that would join the token before it (`a:sub`, `$:sub`) is set apart by a space, so rewriting the
/// output again changes nothing.
package struct PostgresNamedParameters: Sendable, Hashable {
    /// The statement with `$1`, `$2`, … in place of the names.
    package var sql: String
    /// The names in the order of their numbers (`names[0]` is `$1`); a name used twice has one number.
    package var names: [String]

    package init(_ text: String) {
        var names: [String] = []
        var rewriter = SQLTextRewriter(text)
        sql = rewriter.rewrite(dollarQuotes: true) { rewriter in
            guard rewriter.peek() == UInt8(ascii: ":") else { return false }
            if rewriter.peek(1) == UInt8(ascii: ":") {
                // A `::` cast, not a name.
                rewriter.output.append(contentsOf: Array("::".utf8))
                rewriter.index += 2
                return true
            }
            guard let first = rewriter.peek(1), SQLTextRewriter.isNameStart(first) else { return false }
            var end = rewriter.index + 1
            while end < rewriter.bytes.count, SQLTextRewriter.isNamePart(rewriter.bytes[end]) { end += 1 }
            let name = String(decoding: rewriter.bytes[(rewriter.index + 1)..<end], as: UTF8.self)
            let number: Int
            if let existing = names.firstIndex(of: name) {
                number = existing + 1
            } else {
                names.append(name)
                number = names.count
            }
            // The parameter stays a token of its own: after `a` or `$`, `$1` would read as `a$1` or `$$`.
            if let last = rewriter.output.last, SQLTextRewriter.continuesIdentifier(last) {
                rewriter.output.append(UInt8(ascii: " "))
            }
            rewriter.output.append(contentsOf: Array("$\(number)".utf8))
            rewriter.index = end
            return true
        }
        self.names = names
    }
}
