import Foundation
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleStore

/// `lifecycle migrate --check` for deploy pipelines, run as the real binary: exit 1 while the store is
/// behind this build's schema (a new store, one of the release before sealing), 0 once `migrate` brought it
/// up, 2 for one a newer build wrote; one line naming both versions; nothing changed by the check.
@Suite("migrate --check, as a real process")
struct MigrateCheckTests {
    static func check(_ harness: ServiceHarness) async throws -> LifecycleProcess.Finished {
        try await LifecycleProcess.run(["migrate", "--check", "--config", harness.configurationFile])
    }

    @Test(
        "SQLite: behind when missing (not created) and at the previous release's schema, current after migrate, newer refused"
    )
    func sqlite() async throws {
        let harness = try ServiceHarness()
        let path = harness.directory.file("lifecycle.sqlite")
        let supported = SQLiteStore.schemaVersion

        let missing = try await Self.check(harness)
        #expect(missing.status == 1, "\(missing)")
        #expect(
            missing.output
                == "sqlite:\(path): schema version 0, this build's \(supported): behind, run lifecycle migrate\n")
        #expect(!FileManager.default.fileExists(atPath: path), "--check created the store")
        #expect(!FileManager.default.fileExists(atPath: harness.directory.file("secrets/master.key")))

        try FileManager.default.copyItem(atPath: StoreUpgradeTests.fixture, toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let old = try await Self.check(harness)
        #expect(old.status == 1, "\(old)")
        #expect(old.output.contains("schema version 8, this build's \(supported): behind"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "--check changed the store")

        let migrate = try await LifecycleProcess.run(["migrate", "--config", harness.configurationFile])
        #expect(migrate.status == 0, "\(migrate)")
        let current = try await Self.check(harness)
        #expect(current.status == 0, "\(current)")
        #expect(current.output == "sqlite:\(path): schema version \(supported), this build's \(supported): current\n")

        let writer = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 1000)
        try writer.execute(
            "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (\(supported + 1), 'from-the-future', 0)"
        )
        writer.close()
        let newer = try await Self.check(harness)
        #expect(newer.status == 2, "\(newer)")
        #expect(
            newer.output.contains(
                "schema version \(supported + 1), this build's \(supported): written by a newer build"))

        // README, "Upgrades": an old build restarted after a newer one migrated refuses to serve the store, in
        // one line naming both versions, and leaves it as it is.
        let stored = try Data(contentsOf: URL(fileURLWithPath: path))
        let serve = try await LifecycleProcess.run(["serve", "--config", harness.configurationFile])
        #expect(serve.status == 2, "\(serve)")
        #expect(
            serve.errors
                == "lifecycle serve: database schema version \(supported + 1) is newer than this build supports "
                + "(\(supported)); upgrade lifecycle\n",
            "\(serve)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == stored, "serve changed a newer store")
    }

    @Test("SQLite: a store in rollback-journal mode is read as it is, not turned into a WAL database")
    func rollbackJournalLeftAlone() async throws {
        let harness = try ServiceHarness()
        let path = harness.directory.file("lifecycle.sqlite")
        try FileManager.default.copyItem(atPath: StoreUpgradeTests.fixture, toPath: path)
        let writer = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 1000)
        #expect(try writer.queryText("PRAGMA journal_mode = DELETE") == "delete")
        writer.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // The header's read and write versions (bytes 18 and 19): 1 for a rollback journal, 2 for WAL.
        #expect(Array(before[18...19]) == [1, 1])

        let old = try await Self.check(harness)
        #expect(old.status == 1, "\(old)")
        #expect(old.output.contains("schema version 8, this build's \(SQLiteStore.schemaVersion): behind"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "--check changed the store")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("SQLite: a write-ahead log a crash left is read, not checkpointed into the store")
    func leftoverLogLeftAlone() async throws {
        let harness = try ServiceHarness()
        let path = harness.directory.file("lifecycle.sqlite")
        // The store and its log as a crash leaves them: copied while a writer holds committed frames in the log.
        let elsewhere = try TemporaryDirectory()
        let original = elsewhere.file("lifecycle.sqlite")
        try FileManager.default.copyItem(atPath: StoreUpgradeTests.fixture, toPath: original)
        let writer = try SQLiteConnection(path: original, role: .writer, busyTimeoutMilliseconds: 1000)
        try writer.execute("CREATE TABLE scratch (value TEXT)")
        try writer.execute("INSERT INTO scratch (value) VALUES ('committed, in the log only')")
        try FileManager.default.copyItem(atPath: original, toPath: path)
        try FileManager.default.copyItem(atPath: original + "-wal", toPath: path + "-wal")
        writer.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let log = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        #expect(log.count > 32, "the log holds frames")

        let check = try await Self.check(harness)
        #expect(check.status == 1, "\(check)")
        #expect(check.output.contains("schema version 8, this build's \(SQLiteStore.schemaVersion): behind"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "--check checkpointed the log")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")) == log)
    }

    @Test(
        "PostgreSQL: behind on an empty database and at schema version 8, current after migrate",
        .enabled(
            if: HarnessStore.postgresServer != nil,
            "needs a PostgreSQL server: set LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh sets it)"))
    func postgres() async throws {
        let harness = try ServiceHarness(store: .postgres)
        let database = try #require(harness.postgresDatabase)
        let supported = PostgresStore.schemaVersion

        let empty = try await Self.check(harness)
        #expect(empty.status == 1, "\(empty)")
        #expect(empty.output.contains("schema version 0, this build's \(supported): behind, run lifecycle migrate"))
        #expect(!empty.output.contains("password"), "the URL is shown redacted")

        try await database.withConnection { connection throws(PostgresError) in
            do {
                try PostgresMigrator(migrations: Array(PostgresSchema.migrations.prefix(8))).migrate(
                    connection, schema: nil)
            } catch {
                throw PostgresError(sqlState: "XX000", message: "\(error)")
            }
        }
        let old = try await Self.check(harness)
        #expect(old.status == 1, "\(old)")
        #expect(old.output.contains("schema version 8, this build's \(supported): behind"))

        let migrate = try await LifecycleProcess.run(["migrate", "--config", harness.configurationFile])
        #expect(migrate.status == 0, "\(migrate)")
        let current = try await Self.check(harness)
        #expect(current.status == 0, "\(current)")
        #expect(current.output.contains("schema version \(supported), this build's \(supported): current"))
    }
}
