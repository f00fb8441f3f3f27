import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleEngine

/// `lifecycle jobs list|retry|complete --url`: the erasure job routes of the admin API from the command line,
/// printing what the same command prints on the store.
@Suite("lifecycle jobs through the admin API")
struct AdminJobsCommandTests {
    @Test("a failed job: list shows the store's line, retry sends it back once, complete and run are refused")
    func throughTheAdminAPI() async throws {
        let scenario = try ErasureScenario(createDatabase: false, adminToken: AdminAPITests.token)
        let harness = scenario.harness
        let service = try await harness.start()
        _ = try await harness.post(harness.body(type: "account-delete", subject: TestFixtures.subject))
        let store = service.context.store
        let runner = ErasureScenario.runner(configuration: try harness.configuration, store: store, owner: "test")
        let jobID = try #require(try await store.jobs(subject: TestFixtures.subject).first).id
        let giveUp = ContinuousClock.now + .seconds(10)
        while try await store.job(jobID).status != .failed, ContinuousClock.now < giveUp {
            try await runner.runOnce()
            try await Task.sleep(for: .milliseconds(5))
        }
        let url = [
            "--url", "http://127.0.0.1:\(try #require(service.adminPort))", "--token-file",
            harness.directory.file("secrets/admin-token"),
        ]
        let config = ["--config", harness.configurationFile]

        let local = await AdminAccountCommandTests.run(["jobs", "list", "--status", "failed"] + config)
        let remote = await AdminAccountCommandTests.run(["jobs", "list", "--status", "failed"] + url)
        #expect(local.status == 0 && remote.status == 0, "\(local.err) \(remote.err)")
        #expect(remote.out.contains("\(jobID) failed app=shop"), "\(remote.out)")
        #expect(remote.out == local.out, "the same line through the API as on the store")
        let json = await AdminAccountCommandTests.run(["jobs", "list", "--json"] + url)
        #expect(JSONValue.parseIfValid(Array(json.out.utf8))?["jobs"]?.arrayValue?.first?["id"] == .integer(jobID))

        try ErasureScenario.createAppDatabase(at: scenario.appDatabase)
        let retried = await AdminAccountCommandTests.run(["jobs", "retry", String(jobID)] + url)
        #expect(retried.status == 0, "\(retried.err)")
        #expect(retried.out.contains("job \(jobID): failed and unverified steps sent back to pending"))
        let again = await AdminAccountCommandTests.run(["jobs", "retry", String(jobID)] + url)
        #expect(again.status == 1)
        #expect(again.err.contains("nothing_to_retry"), "\(again.err)")

        let complete = await AdminAccountCommandTests.run(["jobs", "complete", String(jobID), "no-such-target"] + url)
        #expect(complete.status == 1)
        #expect(complete.err.contains("unknown_step"), "\(complete.err)")
        let run = await AdminAccountCommandTests.run(["jobs", "run", "--once"] + url)
        #expect(run.status == 2, "run works on the store only")
        let stray = await AdminAccountCommandTests.run(["jobs", "list", "--token-file", "x"] + config)
        #expect(stray.status == 2)
        await harness.stop()
    }
}
