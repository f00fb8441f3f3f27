import LifecycleCore
import Testing

@testable import LifecycleStore

/// Group commit on the SQLite store: writes queued together share one transaction and one fsync.
@Suite("SQLite group commit")
struct SQLiteGroupCommitTests {
    @Test("writes queued while the writer is busy share one commit")
    func queuedWritesShareOneCommit() async throws {
        try await withStore(.sqlite) { store, _ in
            let writes = 50
            let bodies = (0..<writes).map { index in
                { @Sendable (writer: any StoreWriter) throws -> InboxInsertion in
                    try writer.insertNotification(Fixtures.notification(jti: "jti-\(index)", sub: "sub-\(index)"))
                }
            }
            let outcomes = try await queueBehindHeldWriter(store, bodies)
            #expect(outcomes.allSatisfy { if case .success(.inserted) = $0 { true } else { false } })
            let statistics = store.statistics
            // One commit for the held write, one for the 50 queued behind it.
            #expect(statistics.commits == 2)
            #expect(statistics.committedWrites == writes + 1)
            #expect(statistics.largestBatch == writes)
        }
    }

    @Test("reads proceed while the writer is busy, and see only committed data")
    func readsDoNotWaitForTheWriter() async throws {
        try await withStore(.sqlite) { store, _ in
            try await store.write { try $0.insertRejection(Fixtures.rejection(source: "committed")) }
            let gate = WriterGate()
            async let held: Void = store.write { writer in
                try writer.insertRejection(Fixtures.rejection(source: "uncommitted"))
                gate.hold()
            }
            try await waitUntil { gate.isHeld }
            let seen = try await store.read { try $0.rejections(limit: 10).map(\.rejection.source) }
            gate.open()
            try await held
            #expect(seen == ["committed"])
            #expect(try await store.read { try $0.rejectionCount() } == 2)
        }
    }

    @Test("a batch never exceeds the configured maximum size")
    func batchSizeIsBounded() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(
                path: directory.file("lifecycle.sqlite"), configuration: .init(maximumBatchSize: 10))
            let bodies = (0..<35).map { index in
                { @Sendable (writer: any StoreWriter) throws in
                    try writer.insertRejection(Fixtures.rejection(source: "write-\(index)"))
                }
            }
            let outcomes = try await queueBehindHeldWriter(store, bodies)
            let statistics = store.statistics
            await store.close()
            #expect(outcomes.allSatisfy { if case .success = $0 { true } else { false } })
            #expect(statistics.largestBatch == 10)
            #expect(statistics.commits == 1 + 4)  // held write, then 10 + 10 + 10 + 5
        }
    }

    @Test("under concurrency there are fewer commits than writes")
    func concurrentWritesBatch() async throws {
        try await withStore(.sqlite) { store, _ in
            let writes = 200
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<writes {
                    group.addTask {
                        try await store.write { try $0.insertRejection(Fixtures.rejection(source: "w\(index)")) }
                    }
                }
                try await group.waitForAll()
            }
            let statistics = store.statistics
            #expect(statistics.committedWrites == writes)
            #expect(statistics.commits < writes)
        }
    }

    @Test("a throwing body in a batch is rolled back alone; the batch still commits once")
    func throwingBodyInBatch() async throws {
        try await withStore(.sqlite) { store, _ in
            let bodies = (0..<10).map { index in
                { @Sendable (writer: any StoreWriter) throws in
                    try writer.insertRejection(Fixtures.rejection(source: "write-\(index)"))
                    if index == 4 { throw PlannedFailure(index: index) }
                }
            }
            let outcomes = try await queueBehindHeldWriter(store, bodies)
            #expect(throws: PlannedFailure(index: 4)) { try outcomes[4].get() }
            #expect(outcomes.indices.filter { (try? outcomes[$0].get()) != nil } == [0, 1, 2, 3, 5, 6, 7, 8, 9])
            let sources = try await store.read { Set(try $0.rejections(limit: 100).map(\.rejection.source)) }
            #expect(sources == Set([0, 1, 2, 3, 5, 6, 7, 8, 9].map { "write-\($0)" }))
            let statistics = store.statistics
            #expect(statistics.commits == 2)
            #expect(statistics.rolledBackWrites == 1)
        }
    }

    @Test("a write alone in its batch that throws leaves nothing of itself, and the next write commits")
    func throwingLoneWrite() async throws {
        try await withStore(.sqlite) { store, _ in
            await #expect(throws: PlannedFailure(index: 1)) {
                try await store.write { writer in
                    try writer.insertRejection(Fixtures.rejection(source: "half-done"))
                    try writer.insertRejection(Fixtures.rejection(source: "half-done-2"))
                    throw PlannedFailure(index: 1)
                }
            }
            try await store.write { try $0.insertRejection(Fixtures.rejection(source: "after")) }
            let sources = try await store.read { try $0.rejections(limit: 10).map(\.rejection.source) }
            #expect(sources == ["after"])
            let statistics = store.statistics
            #expect(statistics.rolledBackWrites == 1)
            #expect(statistics.committedWrites == 1)
            #expect(statistics.failedCommits == 0)
        }
    }

    @Test("when the commit fails, every write of the batch fails and nothing is stored")
    func failedCommitFailsTheBatch() async throws {
        try await withTemporaryDirectory { directory in
            // A deferred foreign key is checked only at COMMIT: a reliable way to make one commit fail.
            let migrator = Migrator(
                migrations: SQLiteSchema.migrations + [
                    Migration(
                        version: SQLiteSchema.migrations.count + 1, name: "test-deferred-parent-child",
                        sql: """
                            CREATE TABLE parent (id INTEGER PRIMARY KEY);
                            CREATE TABLE child (
                                parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
                            """)
                ])
            let store = try await SQLiteStore.open(
                path: directory.file("lifecycle.sqlite"), configuration: .init(), migrator: migrator)
            var bodies = (0..<5).map { index in
                { @Sendable (writer: any StoreWriter) throws in
                    try writer.insertRejection(Fixtures.rejection(source: "write-\(index)"))
                }
            }
            bodies.append { writer in
                try (writer as! SQLiteAccess).connection.execute("INSERT INTO child (parent_id) VALUES (?)", [42])
            }
            let outcomes = try await queueBehindHeldWriter(store, bodies)
            for outcome in outcomes {
                #expect {
                    try outcome.get()
                } throws: { error in
                    guard case .unavailable(let message) = error as? StoreError else { return false }
                    return message.contains("FOREIGN KEY constraint failed")
                }
            }
            #expect(try await store.read { try $0.rejectionCount() } == 0)
            #expect(store.statistics.failedCommits == 1)
            // The writer carries on after a failed commit.
            try await store.write { try $0.insertRejection(Fixtures.rejection(source: "after")) }
            #expect(try await store.read { try $0.rejectionCount() } == 1)
            await store.close()
        }
    }
}
