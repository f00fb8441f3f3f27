import LifecycleSQL
import Testing

/// The store writes each statement once with PostgreSQL's numbered parameters; SQLite prepares them as
/// `?1`, `?2`, so argument n binds parameter n whatever order the parameters first appear in.
@Suite("Numbered parameters for SQLite")
struct SQLiteNumberedParametersTests {
    @Test(
        "$n becomes ?n and its cast is dropped; literals, quoted identifiers and comments are left alone",
        arguments: [
            ("SELECT id FROM t WHERE a = $1 AND b = $2", "SELECT id FROM t WHERE a = ?1 AND b = ?2"),
            ("UPDATE t SET w = $4::bytea, c = $12::bigint WHERE a = $1", "UPDATE t SET w = ?4, c = ?12 WHERE a = ?1"),
            ("SELECT '$1', \"col$1\" FROM t WHERE a = $1", "SELECT '$1', \"col$1\" FROM t WHERE a = ?1"),
            ("SELECT 1 -- $1\nFROM t WHERE a = $1", "SELECT 1 -- $1\nFROM t WHERE a = ?1"),
            ("SELECT /* $1 */ 1 WHERE a = $1", "SELECT /* $1 */ 1 WHERE a = ?1"),
            ("SELECT id FROM t WHERE a = ? AND b = ?", "SELECT id FROM t WHERE a = ? AND b = ?"),
            ("SELECT $a, $ FROM t", "SELECT $a, $ FROM t"),
        ])
    func rewrites(sql: String, expected: String) {
        #expect(SQLiteNumberedParameters.sqliteForm(sql) == expected)
    }

    @Test("a parameter used before a lower-numbered one still binds its own argument")
    func bindsByNumber() async throws {
        try await withTemporaryDirectory { directory in
            let connection = try SQLiteConnection(
                path: directory.file("numbered.sqlite"), role: .writer, busyTimeoutMilliseconds: 1000)
            defer { connection.close() }
            let text = try connection.queryText("SELECT $2 || '-' || $1 || '-' || $2", ["first", "second"])
            #expect(text == "second-first-second")
        }
    }
}
