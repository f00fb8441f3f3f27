import Foundation
import LifecycleCore
import Testing

/// README, "Erasure" (`sqlite` target): with `secureDelete` the step checkpoints the app database's
/// write-ahead log and truncates it, so no page of the erased rows stays in `-wal`; "when the app's own
/// readers keep the log busy for 6 s the attempt fails `sqlite_wal_busy` and is retried". Through the real
/// `serve`: an app reader holds a snapshot across the erasure, the attempt fails with that code while the
/// rows are already gone, and once the reader leaves the retry truncates the log and the job completes.
@Suite("An app reader holding the write-ahead log during an erasure")
struct AppReaderWALBusyProcessTests {
    static let subject = "000444.walbusy.0001"

    /// The step of the subject's job on `app-db`, as `lifecycle jobs list --json --sub` prints it.
    static func step(_ fixture: ServeFixture) async throws -> (job: JSONValue?, step: JSONValue?) {
        let listed = try await fixture.lifecycle([
            "jobs", "list", "--sub", subject, "--json", "--config", fixture.configurationFile,
        ])
        let job = JSONValue.parseIfValid(Array(listed.output.utf8))?["jobs"]?.arrayValue?.first
        return (job, job?["steps"]?.arrayValue?.first { $0["target"] == "app-db" })
    }

    @Test(
        "the attempt fails sqlite_wal_busy while an app reader holds the log; after it leaves, the retry truncates the log"
    )
    func busyThenTruncated() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: ["erasure": ["pollMilliseconds": 100, "baseDelayMilliseconds": 200, "maxDelayMilliseconds": 500]])
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject])
        let path = fixture.directory.file("app.sqlite")
        let reader = try AppDatabaseReader(path: path)
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.subject)).status == 200)

        // Each attempt waits the log out for about 6 s (20 tries of 100 ms and a 200 ms pause).
        let busy = await eventually(timeout: .seconds(30)) {
            (try? await Self.step(fixture))?.step?["error_code"] == "sqlite_wal_busy"
        }
        #expect(busy, "\(fixture.log.suffix(2000))")
        let during = try await Self.step(fixture)
        #expect(during.job?["status"] != "completed", "not erased while the log holds the old pages")
        #expect(during.step?["status"] != "failed", "retried, not given up: \(String(describing: during.step))")
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 0, "the rows are gone already")
        #expect(try reader.snapshotUsers() == 1, "the reader's snapshot still sees the old row")

        try reader.leave()
        let completed = await eventually(timeout: .seconds(30)) {
            (try? await Self.step(fixture))?.job?["status"] == "completed"
        }
        #expect(completed, "\(fixture.log.suffix(2000))")
        let done = try await Self.step(fixture).step
        #expect(done?["status"] == "done", "\(String(describing: done))")
        #expect(
            done?["hygiene"]?.stringValue?.contains("wal_checkpoint(TRUNCATE)") == true, "\(String(describing: done))")
        #expect(await fixture.stop() == [0])
    }
}
