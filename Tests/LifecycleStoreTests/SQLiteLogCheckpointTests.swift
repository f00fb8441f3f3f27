import Foundation
import LifecycleCore
import LifecycleSQL
import Testing

@testable import LifecycleStore

/// The write-ahead log is copied into the database file by a thread of its own, and bounded by the writer.
@Suite("SQLite log checkpoints")
struct SQLiteLogCheckpointTests {
    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    private func insert(_ store: SQLiteStore, _ range: Range<Int>) async throws {
        for index in range {
            _ = try await store.write { writer in
                try writer.insertNotification(Fixtures.notification(jti: "jti-\(index)", sub: "sub-\(index)"))
            }
        }
    }

    @Test("once the log passes its threshold the checkpoint thread copies it into the database file")
    func checkpointThreadCopiesTheLog() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("lifecycle.sqlite")
            // The writer's own bound far away: only the checkpoint thread can move pages into the file.
            let store = try await SQLiteStore.open(
                path: path, configuration: .init(logCheckpointFrames: 20, logLimitFrames: 1_000_000))
            let before = size(path)
            try await insert(store, 0..<40)
            #expect(size(path + "-wal") > 0)
            try await waitUntil { size(path) > before }
            await store.close()
        }
    }

    @Test("under writes that never pause the writer keeps the log near its limit")
    func writerBoundsTheLog() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("lifecycle.sqlite")
            // The checkpoint thread never woken: the bound is the writer's.
            let limit = 50
            let store = try await SQLiteStore.open(
                path: path, configuration: .init(logCheckpointFrames: 1_000_000, logLimitFrames: limit))
            let pageSize = try await store.read { reader in
                try (reader as! SQLiteAccess).connection.queryInt64("PRAGMA page_size") ?? 0
            }
            // The migrations' own frames are already in the log when the store opens.
            let afterOpen = size(path + "-wal")
            try await insert(store, 0..<300)
            let logBytes = size(path + "-wal")
            await store.close()
            // 32-byte header, then frames of a 24-byte header and a page; one commit's frames past the limit (or
            // past what the migrations left, which the first commit checkpoints).
            let frame = Int(pageSize) + 24
            let bound = max(afterOpen, 32 + limit * frame) + 30 * frame
            #expect(logBytes > 0 && logBytes <= bound, "log \(logBytes) bytes, bound \(bound)")
        }
    }

    /// Each passive checkpoint flushes the database file: woken at every commit past its threshold, the thread
    /// had the disk flushing it about as often as the log.
    @Test("past its threshold the checkpoint thread is woken once per quarter of it in new frames, not per commit")
    func wokenByFramesNotByCommits() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("wakes.sqlite")
            let writer = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 5_000)
            try writer.executeScript("CREATE TABLE rows (id INTEGER PRIMARY KEY, value BLOB)")
            let checkpointer = try #require(
                LogCheckpointer.start(
                    path: path, configuration: .init(logCheckpointFrames: 40, logLimitFrames: 1_000_000)))
            checkpointer.attach(to: writer)
            // 400 commits of a frame or two each: about 360 past the threshold, one wake per 10 new frames.
            for id in 0..<400 { try writer.execute("INSERT INTO rows VALUES (?, randomblob(100))", [id]) }
            checkpointer.closeAndWait()
            writer.close()
            let wakes = checkpointer.wakes.load(ordering: .relaxed)
            #expect(wakes > 0 && wakes <= 120, "\(wakes) wakes for 400 commits")
        }
    }
}
