import Foundation
import LifecycleSQL
import TestSupport
import Testing

/// A group-commit write that shares its batch runs in a savepoint, whose statement journal holds the pages as
/// they were before it: the erased rows' old content during an erasure, and about 97 KB of copied pages per ingested
/// notification. Kept in memory (`temp_store = MEMORY`), it never reaches a temporary file's disk blocks,
/// where neither `secure_delete` nor the WAL truncation would reach it.
@Suite("Statement journals stay in memory")
struct StatementJournalTests {
    /// The paths of this process's open descriptors that are SQLite temporary files (`etilqs_` prefix,
    /// unlinked at open, so shown as `… (deleted)`).
    static func openTemporaryFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.contains("etilqs_") }
    }

    @Test("a savepoint that changes far more than the 64 KiB spill threshold opens no temporary file")
    func savepointJournalStaysInMemory() throws {
        let directory = try TestSupport.TemporaryDirectory(prefix: "statement-journal")
        let connection = try SQLiteConnection(
            path: directory.file("store.sqlite"), role: .writer, busyTimeoutMilliseconds: 1000)
        defer { connection.close() }
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        try connection.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO t (body) SELECT randomblob(1000) FROM n
            """)
        #expect(Self.openTemporaryFiles().isEmpty)
        try connection.execute("BEGIN IMMEDIATE")
        try connection.execute("SAVEPOINT write")
        // About 500 KB of existing pages change inside the savepoint: each is copied to its journal first.
        try connection.execute("UPDATE t SET body = randomblob(1000)")
        let during = Self.openTemporaryFiles()
        try connection.execute("RELEASE SAVEPOINT write")
        try connection.execute("COMMIT")
        #expect(during.isEmpty, "statement journal spilled to \(during)")
        #expect(try connection.queryInt64("SELECT count(*) FROM t") == 500)
    }

    @Test("an app database opened for erasure keeps its temporary files in memory too")
    func erasureConnectionTempStore() throws {
        let directory = try TestSupport.TemporaryDirectory(prefix: "statement-journal-app")
        let database = try ExternalSQLiteDatabase(
            path: directory.file("app.sqlite"), busyTimeoutMilliseconds: 1000, create: true, secureDelete: true)
        defer { database.close() }
        // 2 = MEMORY (https://www.sqlite.org/pragma.html#pragma_temp_store).
        #expect(try database.queryInteger("PRAGMA temp_store", parameters: [:]) == 2)
    }
}
