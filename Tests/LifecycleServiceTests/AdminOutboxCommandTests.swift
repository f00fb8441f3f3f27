import Foundation
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

/// `lifecycle outbox list|retry` on the store and through the admin API.
@Suite("lifecycle outbox")
struct AdminOutboxCommandTests {
    @Test(
        "list shows a dead message, retry sends it back to pending, a second retry is refused",
        arguments: [false, true])
    func listAndRetry(throughAPI: Bool) async throws {
        let harness = try ServiceHarness(adminToken: AdminAPITests.token)
        let service = try await harness.start()
        let id = try await AdminAPITests.deadMessage(in: service.context.store)
        let target =
            throughAPI
            ? [
                "--url", "http://127.0.0.1:\(try #require(service.adminPort))", "--token-file",
                harness.directory.file("secrets/admin-token"),
            ]
            : ["--config", harness.configurationFile]

        let dead = await AdminAccountCommandTests.run(["outbox", "list", "--status", "dead"] + target)
        #expect(dead.status == 0, "\(dead.err)")
        #expect(dead.out.contains("#\(id) shop account.sessions.terminate dead, 1 attempts, last status 503"))

        let retried = await AdminAccountCommandTests.run(["outbox", "retry", String(id), "--json"] + target)
        #expect(retried.status == 0, "\(retried.err)")
        #expect(JSONValue.parseIfValid(Array(retried.out.utf8))?["status"] == "pending")
        let message = try await service.context.store.read { try $0.outboxMessage(id: id) }
        #expect(message?.status == .pending)

        let again = await AdminAccountCommandTests.run(["outbox", "retry", String(id)] + target)
        #expect(again.status == 1)
        #expect(again.err.contains("not_dead"))
        await harness.stop()
    }
}
