import Foundation
import LifecycleCore
import Testing

/// README, "What happens to a notification": `503` when the service cannot store, so Apple retries; `200` only
/// after the commit. Driven through the real `serve`: another process holds the store's write lock longer than
/// `storage.busyTimeoutMilliseconds`, and the notification sent meanwhile must be refused, not lost: Apple's
/// retry after the lock is gone is stored, once.
@Suite("serve while its store cannot be written")
struct StoreUnavailableProcessTests {
    @Test(
        "a notification the store cannot take is answered 503 temporarily_unavailable and not stored; the retry is stored once"
    )
    func writeLockHeldElsewhere() async throws {
        let fixture = try await ServeFixture(
            extra: ["storage": ["url": "sqlite:lifecycle.sqlite", "busyTimeoutMilliseconds": 200]])
        try await fixture.start()
        let store = fixture.directory.file("lifecycle.sqlite")
        let body = fixture.notification(type: "email-disabled", subject: "000777.busystore.0001")

        let lock = try AppDatabaseWriteLock(path: store, busyTimeoutMilliseconds: 10_000)
        let refused = try await fixture.post(body)
        // Reads go on beside a writer in WAL mode: the store is busy, not down, and the listener stays ready.
        let ready = try await fixture.publicClient().get("/readyz").status
        try lock.release()
        #expect(refused.status == 503, "\(refused)")
        #expect(refused.json?["err"] == "temporarily_unavailable", "\(refused)")
        #expect(ready == 200)

        let retried = try await fixture.post(body)
        #expect(retried.status == 200 && retried.json?["status"] == "accepted", "\(retried)")
        let again = try await fixture.post(body)
        #expect(again.json?["status"] == "duplicate", "\(again)")
        #expect(fixture.logEvents("notification.store_failed").count == 1, "\(fixture.log.suffix(2000))")
        #expect(
            try await fixture.metric(
                "lifecycle_notifications_total", ["type": "email-disabled", "outcome": "unavailable"]) == 1)
        #expect(await fixture.stop() == [0])
        #expect(try StoreFile.count("SELECT count(*) FROM notifications", in: store) == 1)
    }
}
