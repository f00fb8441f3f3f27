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
        var rewriter = SQLTextRewriter(text)
        return rewriter.rewrite(dollarQuotes: false) { rewriter in
            guard rewriter.peek() == UInt8(ascii: "$"), let digit = rewriter.peek(1), SQLTextRewriter.isDigit(digit)
            else { return false }
            rewriter.output.append(UInt8(ascii: "?"))
            rewriter.index += 1
            while let byte = rewriter.peek(), SQLTextRewriter.isDigit(byte) {
                rewriter.output.append(byte)
                rewriter.index += 1
            }
            // `::type`: PostgreSQL's cast of the parameter, meaningless to SQLite.
            if rewriter.peek() == UInt8(ascii: ":"), rewriter.peek(1) == UInt8(ascii: ":") {
                rewriter.index += 2
                while let byte = rewriter.peek(), SQLTextRewriter.isNamePart(byte) { rewriter.index += 1 }
            }
            return true
        }
    }
}
