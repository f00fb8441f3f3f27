import LifecycleSQL
import Testing

@testable import LifecycleStore

/// Configured statements name their values (`:sub`) as SQLite does; PostgreSQL gets numbered parameters, and
/// nothing that only looks like a name is touched.
@Suite("Named parameters for PostgreSQL")
struct PostgresNamedParametersTests {
    @Test(
        "names become numbered parameters; casts, literals, quoted identifiers, comments and dollar quotes are left alone",
        arguments: [
            ("DELETE FROM users WHERE apple_sub = :sub", "DELETE FROM users WHERE apple_sub = $1", ["sub"]),
            ("SELECT :sub::text, :sub", "SELECT $1::text, $1", ["sub"]),
            (
                "UPDATE t SET a = :app WHERE s = :sub AND x = :app", "UPDATE t SET a = $1 WHERE s = $2 AND x = $1",
                ["app", "sub"]
            ),
            (
                "SELECT ':sub', \"col:sub\" FROM t WHERE s = :sub", "SELECT ':sub', \"col:sub\" FROM t WHERE s = $1",
                ["sub"]
            ),
            ("SELECT 1 -- :sub\nFROM t WHERE s = :sub", "SELECT 1 -- :sub\nFROM t WHERE s = $1", ["sub"]),
            (
                "SELECT /* :sub */ $tag$ :sub $tag$, $$:x$$ WHERE s = :sub",
                "SELECT /* :sub */ $tag$ :sub $tag$, $$:x$$ WHERE s = $1", ["sub"]
            ),
            ("SELECT 'it''s :sub' WHERE a[1:2] = :sub", "SELECT 'it''s :sub' WHERE a[1:2] = $1", ["sub"]),
            // An escape string: the backslash-escaped quote does not end it, so `:sub` inside stays text.
            ("SELECT E'it\\'s :sub' WHERE s = :sub", "SELECT E'it\\'s :sub' WHERE s = $1", ["sub"]),
            // `note'…'` is not an escape string (the E ends a longer name): the quote opens a plain literal.
            ("SELECT note'\\', :sub", "SELECT note'\\', $1", ["sub"]),
            // PostgreSQL lets `$` continue an identifier, so `note$$` is a name, not a dollar quote opening.
            ("SELECT note$$ :sub, $$:x$$", "SELECT note$$ $1, $$:x$$", ["sub"]),
            // A parameter is its own token: `a$1` or `$$1` would read as an identifier or a dollar quote.
            ("SELECT a:sub, $:app, 1:sub", "SELECT a $1, $ $2, 1 $1", ["sub", "app"]),
            ("SELECT :E'\\', :sub", "SELECT $1'\\', $2", ["E", "sub"]),
        ])
    func rewrites(sql: String, expected: String, names: [String]) {
        let named = PostgresNamedParameters(sql)
        #expect(named.sql == expected)
        #expect(named.names == names)
    }

    @Test(
        "rewriting a rewritten statement changes nothing: no name is left, none is made",
        arguments: [
            "SELECT a FROM t WHERE b = :sub",
            "SELECT x $:sub, y$$ :app $$ :z",
            // `:E` is a name, so the quote after it opens a plain literal, in which a backslash escapes nothing.
            "UPDATE t SET note = e:E'\\', x = :sub",
            // Found by the sql-parameters fuzz target: `$:tin` became `$$2`, which read again as a dollar quote.
            "SELEC:iSELECatECa $:tin\u{FFFD}e$$ :in\u{FFFD}e$=E'ina",
        ])
    func idempotent(sql: String) {
        let once = PostgresNamedParameters(sql)
        let twice = PostgresNamedParameters(once.sql)
        #expect(twice.sql == once.sql)
        #expect(twice.names.isEmpty)
    }

    @Test("a name without a value is refused before anything runs, and the message names it without any value")
    func missingValue() {
        #expect {
            _ = try ExternalPostgresDatabase.bind("DELETE FROM t WHERE a = :sub AND b = :app", ["sub": "001.secret.01"])
        } throws: { error in
            let failure = error as? ExternalPostgresDatabase.Failure
            return failure?.code == .postgresParameter && failure?.message == "no value for :app"
                && failure?.isTransient == false
        }
    }
}
