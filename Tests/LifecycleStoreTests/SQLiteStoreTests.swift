import Foundation
import LifecycleCore
import LifecycleSQL
import Testing

@testable import LifecycleStore

/// What only the SQLite store does: migrations on its file, connection settings, and its failure messages.
@Suite("SQLite store")
struct SQLiteStoreTests {
    /// Reads `schema_migrations` straight from the file, outside any store.
    private func recordedMigrations(_ path: String) throws -> [(version: Int64, name: String, appliedAt: Int64)] {
        let connection = try SQLiteConnection(path: path, role: .reader, busyTimeoutMilliseconds: 1_000)
        defer { connection.close() }
        var rows: [(Int64, String, Int64)] = []
        try connection.forEachRow("SELECT version, name, applied_at_ms FROM schema_migrations ORDER BY version") {
            rows.append(($0.int64(0), $0.text(1), $0.int64(2)))
        }
        return rows
    }

    @Test("an outbox written before webhook ids keeps msg_<row id> for its messages; new ones get their own")
    func outboxMessageIDMigration() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("lifecycle.sqlite")
            let before = Array(SQLiteSchema.migrations.prefix { $0.name != "outbox-message-ids" })
            let old = try await SQLiteStore.open(
                path: path, configuration: .init(), migrator: Migrator(migrations: before))
            await old.close()
            let connection = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 1_000)
            try connection.execute(
                """
                INSERT INTO outbox (app, sub, kind, payload, status, attempts, created_at_ms, available_at_ms)
                VALUES ('shop', 's', 'account.sessions.terminate', '{}', 'pending', 2, 1, 1)
                """)
            connection.close()

            let store = try await SQLiteStore.open(path: path)
            let migrated = try await store.read { try $0.outboxMessage(id: 1) }
            let new = Fixtures.outboxMessage(messageID: "msg_0190f5e6-0000-7000-8000-00000000000a")
            let id = try await store.write { try $0.enqueueOutbox(new) }
            let added = try await store.read { try $0.outboxMessage(id: id) }
            await store.close()
            #expect(migrated?.messageID == "msg_1", "a receiver that saw msg_1 still recognises its retries")
            #expect(migrated?.attempts == 2)
            #expect(added?.messageID == new.messageID)
        }
    }

    @Test("a new database gets every migration once, and reopening applies none again")
    func migrationsApplyOnce() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("lifecycle.sqlite")
            let store = try await SQLiteStore.open(path: path)
            try await store.write { try $0.insertRejection(Fixtures.rejection()) }
            await store.close()
            let first = try recordedMigrations(path)
            #expect(first.map(\.name) == SQLiteSchema.migrations.map(\.name))
            #expect(first.map(\.version) == SQLiteSchema.migrations.map { Int64($0.version) })

            let reopened = try await SQLiteStore.open(path: path)
            #expect(try await reopened.read { try $0.rejectionCount() } == 1)
            await reopened.close()
            let second = try recordedMigrations(path)
            #expect(second.map(\.version) == first.map(\.version))
            #expect(second.map(\.appliedAt) == first.map(\.appliedAt))
        }
    }

    @Test("a database from an older build is brought up to date and keeps its data")
    func olderDatabaseIsUpgraded() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("lifecycle.sqlite")
            let older = try await SQLiteStore.open(
                path: path, configuration: .init(),
                migrator: Migrator(migrations: Array(SQLiteSchema.migrations.prefix(2))))
            try await older.write { try $0.insertRejection(Fixtures.rejection()) }
            await older.close()

            let current = try await SQLiteStore.open(path: path)
            let kept = try await current.read { try $0.rejectionCount() }
            _ = try await current.write { try $0.insertNotification(Fixtures.notification(jti: "new")) }
            await current.close()
            #expect(kept == 1)
            #expect(try recordedMigrations(path).count == SQLiteSchema.migrations.count)
        }
    }

    @Test("evidence stored with the old kebab-case failure codes reads back in the one snake_case spelling")
    func failureCodesAreRespelled() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("lifecycle.sqlite")
            let t0 = Fixtures.receivedAt
            let beforeRespelling = Migrator(migrations: Array(SQLiteSchema.migrations.prefix(11)))
            let store = try await SQLiteStore.open(path: path, configuration: .init(), migrator: beforeRespelling)
            let plan = ErasureJobPlan(
                policyReference: "kr-pipa@1#abc123", trigger: .accountDeleted, eventTime: t0, origin: .rule(index: 0),
                categories: [.profile], targets: ["app-db", "backend"], notBefore: t0,
                deadline: t0.adding(seconds: 86_400), cancelIfRelinked: false, basis: nil)
            let id = try await store.write {
                try $0.insertErasureJob(app: "shop", subject: "001.a.1", plan: plan, createdAt: t0)
            }
            await store.close()
            // What a release before the one spelling wrote.
            let old = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 1_000)
            try old.execute(
                "UPDATE erasure_steps SET error_code = CASE ordinal WHEN 0 THEN 'http-500' ELSE 'webhook-not-configured' END WHERE job_id = ?",
                [id])
            old.close()

            let current = try await SQLiteStore.open(path: path)
            let job = try #require(try await current.read { try $0.erasureJob(id: id) })
            await current.close()
            #expect(job.job.steps.map(\.evidence.errorCode) == [.httpStatus(500), .noWebhookConfigured])
        }
    }

    @Test("a database migrated by a newer build is refused and left untouched")
    func newerSchemaIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("lifecycle.sqlite")
            let supported = SQLiteStore.schemaVersion
            let newer = Migrator(
                migrations: SQLiteSchema.migrations + [
                    Migration(version: supported + 1, name: "from-a-newer-build", sql: "CREATE TABLE future (x)")
                ])
            try await SQLiteStore.open(path: path, configuration: .init(), migrator: newer).close()

            await #expect(throws: StoreError.schemaTooNew(found: supported + 1, supported: supported)) {
                try await SQLiteStore.open(path: path)
            }
            #expect(try recordedMigrations(path).count == supported + 1)
        }
    }

    @Test("a database whose history names a step differently is refused")
    func renamedMigrationIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("lifecycle.sqlite")
            var renamed = SQLiteSchema.migrations
            renamed[renamed.count - 1].name = "another-branch"
            try await SQLiteStore.open(path: path, configuration: .init(), migrator: Migrator(migrations: renamed))
                .close()
            await #expect {
                try await SQLiteStore.open(path: path)
            } throws: { error in
                guard case .unavailable(let message) = error as? StoreError else { return false }
                return message.contains("another-branch") && message.contains(path)
            }
        }
    }

    @Test(
        "the writer is durable and leaves no erased bytes: WAL, synchronous FULL, foreign keys on, configured busy timeout, secure_delete on"
    )
    func writerSettings() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(
                path: directory.file("lifecycle.sqlite"), configuration: .init(busyTimeoutMilliseconds: 1_234))
            let settings = try await store.write { writer in
                let connection = (writer as! SQLiteAccess).connection
                return [
                    try connection.queryText("PRAGMA journal_mode"),
                    try connection.queryInt64("PRAGMA synchronous").map(String.init),
                    try connection.queryInt64("PRAGMA foreign_keys").map(String.init),
                    try connection.queryInt64("PRAGMA busy_timeout").map(String.init),
                    try connection.queryInt64("PRAGMA secure_delete").map(String.init),
                ]
            }
            await store.close()
            // synchronous: 2 is FULL (https://www.sqlite.org/pragma.html#pragma_synchronous).
            #expect(settings == ["wal", "2", "1", "1234", "1"])
        }
    }

    /// The detail lines of SQLite's `EXPLAIN QUERY PLAN` for `sql` (https://www.sqlite.org/eqp.html).
    private func queryPlan(
        _ store: any Store, _ sql: String, _ arguments: [any SQLiteBindable & Sendable]
    ) async throws -> [String] {
        try await store.read { reader in
            var details: [String] = []
            try (reader as! SQLiteAccess).connection.forEachRow("EXPLAIN QUERY PLAN " + sql, arguments) { row in
                details.append(row.text(3))
            }
            return details
        }
    }

    /// A page after the first must be a range search on the primary key, or a nightly walk over a million
    /// accounts rescans every earlier account on every page (https://www.sqlite.org/eqp.html).
    @Test("each page of the reconciler's walk starts where the last ended, by a range search on the key")
    func observedAccountsPlan() async throws {
        try await withStore(.sqlite) { store, _ in
            let plan = try await queryPlan(store, SQLiteAccess.observedAccountsAfter, ["shop", "sub-a", 10])
            #expect(plan.contains { $0.contains("SEARCH a USING PRIMARY KEY (app=? AND sub>?)") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE FOR ORDER BY") }, "\(plan)")
        }
    }

    /// The erasure runner's claim must walk the open jobs in deadline order and stop at its limit; collecting
    /// and sorting every due step made draining a backlog quadratic (https://www.sqlite.org/eqp.html).
    @Test("the erasure claim walks the open jobs' deadline index and never sorts the backlog")
    func erasureClaimPlan() async throws {
        try await withStore(.sqlite) { store, _ in
            let plan = try await queryPlan(store, SQLiteAccess.claimErasureStepsSQL, ["o", 2, 1, "self", 16])
            #expect(plan.contains { $0.contains("SCAN j USING INDEX erasure_jobs_open") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE FOR ORDER BY") }, "\(plan)")
        }
    }

    /// Every secondary index on `accounts` is one more leaf at a random key in each new account's commit; the
    /// one reader of states, the live count of a `notification-gap` finding, walks the app's primary-key range.
    @Test("accounts has no index beside its primary key, and the live count walks the app's key range")
    func accountsPrimaryKeyOnly() async throws {
        try await withStore(.sqlite) { store, _ in
            let indexes = try await store.read { reader in
                var names: [String] = []
                try (reader as! SQLiteAccess).connection.forEachRow(
                    "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'accounts' AND sql IS NOT NULL",
                    []
                ) { row in names.append(row.text(0)) }
                return names
            }
            #expect(indexes == [], "\(indexes)")
            let plan = try await queryPlan(store, SQLiteAccess.liveAccountCountSQL, ["shop"])
            #expect(plan.contains { $0.contains("SEARCH accounts USING PRIMARY KEY (app=?)") }, "\(plan)")
        }
    }

    @Test("a read body cannot write, even by casting its reader")
    func readsCannotWrite() async throws {
        try await withStore(.sqlite) { store, _ in
            await #expect {
                try await store.read { reader in try (reader as! any StoreWriter).insertRejection(Fixtures.rejection())
                }
            } throws: { error in
                guard case .unavailable(let message) = error as? StoreError else { return false }
                return message.contains("readonly") || message.contains("read-only") || message.contains("query_only")
            }
            let count = try await store.read { try $0.rejectionCount() }
            #expect(count == 0)
        }
    }

    @Test(
        "a store on an unusable path fails as unavailable and names the path",
        arguments: ["missing-directory/lifecycle.sqlite", "a-regular-file/lifecycle.sqlite"])
    func unusablePath(relativePath: String) async throws {
        try await withTemporaryDirectory { directory in
            try Data("not a directory".utf8).write(to: URL(fileURLWithPath: directory.file("a-regular-file")))
            let path = directory.file(relativePath)
            await #expect {
                try await SQLiteStore.open(path: path)
            } throws: { error in
                guard case .unavailable(let message) = error as? StoreError else { return false }
                return message.contains(path)
            }
        }
    }

    @Test("a failing statement reports SQLite's reason and the SQL, never the bound values")
    func errorsOmitBoundValues() async throws {
        try await withStore(.sqlite) { store, _ in
            let secret = "001234.secret-sub-marker.0957"
            let rejection = NewRejection(
                reason: .badSignature, receivedAt: Fixtures.receivedAt, bodySize: -1, bodySHA256: secret,
                audience: secret, source: secret)
            await #expect {
                try await store.write { try $0.insertRejection(rejection) }
            } throws: { error in
                guard case .unavailable(let message) = error as? StoreError else { return false }
                return message.contains("CHECK constraint failed") && message.contains("INSERT INTO rejections")
                    && !message.contains(secret) && !String(describing: error).contains(secret)
            }
        }
    }

    /// Per-thread profiles (`top -H`, `perf`, `/proc/<pid>/task/*/comm`) tell the store's threads apart.
    @Test("the store's writer, checkpoint and reader threads carry their names")
    func threadNames() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(path: directory.file("lifecycle.sqlite"))
            let expected: Set<String> = ["lc-db-writer", "lc-db-checkpnt", "lc-db-reader-0", "lc-db-reader-1"]
            // Each thread names itself as it starts, which may be just after the store opened.
            var names: Set<String> = []
            try await waitUntil {
                names = Set(
                    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap {
                        (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                            .trimmingCharacters(in: .whitespacesAndNewlines)
                    })
                return names.isSuperset(of: expected)
            }
            await store.close()
            #expect(names.isSuperset(of: expected), "\(names)")
        }
    }
}
