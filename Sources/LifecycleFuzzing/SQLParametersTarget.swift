import LifecycleSQL

/// The parameter rewrites of configured SQL (erasure statements, `verify` queries, reconcile record queries):
/// `:name` to PostgreSQL's `$n` (``PostgresNamedParameters``) and `$n` to SQLite's `?n`
/// (``SQLiteNumberedParameters``), both walks of ``SQLTextRewriter``. The text is the operator's, read from the
/// configuration file.
///
/// Properties: every name has the documented grammar (a letter or `_`, then letters, digits, `_`) and one
/// number; text without `:` (PostgreSQL) or `$` (SQLite) comes back unchanged; rewriting an output again
/// changes nothing (no parameter is left, none is made); for text without `$` or `\` (no dollar quotes, no
/// backslash escapes: PostgreSQL's alone), every `$n` the PostgreSQL rewrite made is a parameter to the SQLite
/// walk too, so both walks agree on what lies outside literals and comments.
enum SQLParametersTarget {
    static let target = FuzzTarget(
        name: "sql-parameters",
        summary:
            "configured SQL parameters: names well-formed and numbered once, identity without markers, rewrite idempotent, both walks agree",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let text = String(decoding: bytes, as: UTF8.self)
        let named = PostgresNamedParameters(text)
        try require(Set(named.names).count == named.names.count, "a name got two numbers")
        for name in named.names {
            let utf8 = Array(name.utf8)
            try require(
                utf8.first.map(SQLTextRewriter.isNameStart) == true && utf8.allSatisfy(SQLTextRewriter.isNamePart),
                "name \(name) is outside the grammar")
            // Bytes, not Characters: a name followed by a combining mark is still in the text.
            try require(
                text.utf8.firstRange(of: Array((":" + name).utf8)) != nil, "name \(name) is not in the text")
        }
        if !text.utf8.contains(UInt8(ascii: ":")) {
            try require(named.sql == text && named.names.isEmpty, "text without ':' changed")
        }
        let again = PostgresNamedParameters(named.sql)
        try require(again.names.isEmpty && again.sql == named.sql, "the PostgreSQL rewrite is not idempotent")

        let sqlite = SQLiteNumberedParameters.sqliteForm(text)
        if !text.utf8.contains(UInt8(ascii: "$")) {
            try require(sqlite == text, "text without '$' changed in the SQLite form")
        }
        // Dollar quotes and backslashes in escape strings are PostgreSQL's alone: without them, both walks
        // must find the same literals.
        if !text.utf8.contains(UInt8(ascii: "$")) && !text.utf8.contains(UInt8(ascii: "\\")) {
            let numbered = SQLiteNumberedParameters.sqliteForm(named.sql)
            for number in named.names.indices.map({ $0 + 1 }) {
                try require(
                    numbered.utf8.firstRange(of: Array("?\(number)".utf8)) != nil,
                    "$\(number) made by the PostgreSQL walk is not a parameter to the SQLite walk")
            }
        }
        try require(
            SQLiteNumberedParameters.sqliteForm(sqlite) == sqlite, "the SQLite rewrite is not idempotent")
    }
}
