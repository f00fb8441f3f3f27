import Foundation
import LifecycleCore
import Testing

/// README, "Erasure policies and jobs": a policy with no rule for `in-app-deletion` is allowed, but such a request
/// is acknowledged and nothing of the rules' categories is erased; without `retain[]` it stays open in the ledger
/// with no deadline, and `serve` says so at start (`erasure.deletion_not_covered`). Through the real `serve`.
@Suite("A deletion the app's policy has no rule for")
struct UncoveredDeletionProcessTests {
    static let subject = "000777.uncovered.0001"

    @Test(
        "an in-app deletion under a policy with no rule for it: warned at start, acknowledged, no job, open in the ledger with no deadline"
    )
    func inAppDeletionNotCovered() async throws {
        // The fixture's policy has one rule, on account-deleted.
        let fixture = try await ServeFixture(apps: [
            ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))
        ])
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject])
        try await fixture.start()
        // Logged just after the listener accepts, so possibly after /readyz first answered.
        let logged = await eventually(timeout: .seconds(30)) {
            !fixture.logEvents("erasure.deletion_not_covered").isEmpty
        }
        let warned = fixture.logEvents("erasure.deletion_not_covered")
        #expect(logged && warned.count == 1, "\(fixture.log.suffix(1500))")
        #expect(warned.first?["triggers"] == ["in-app-deletion"], "\(warned)")

        let deleted = try await fixture.admin("POST", "/v1/apps/shop/accounts/\(Self.subject)/deletion")
        #expect(deleted.status == 200, "\(deleted)")
        let jobs = try await fixture.lifecycle([
            "jobs", "list", "--sub", Self.subject, "--json", "--config", fixture.configurationFile,
        ])
        #expect(jobs.status == 0, "\(jobs)")
        #expect(JSONValue.parseIfValid(Array(jobs.output.utf8))?["jobs"]?.arrayValue?.isEmpty == true, "\(jobs)")
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 1, "nothing of the app's was erased")

        let ledger = try await fixture.admin("GET", "/v1/requests?app=shop")
        let entry = try #require(ledger.json?["requests"]?.arrayValue?.first, "\(ledger)")
        #expect(entry["eventType"] == "in-app-deletion", "\(entry)")
        #expect(entry["deadline"] == .null, "\(entry)")
        #expect(entry["response"] == "open", "\(entry)")
        #expect(await fixture.stop() == [0])
    }
}
