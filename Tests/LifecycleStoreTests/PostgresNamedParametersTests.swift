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
        ])
    func rewrites(sql: String, expected: String, names: [String]) {
        let named = PostgresNamedParameters(sql)
        #expect(named.sql == expected)
        #expect(named.names == names)
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
