import Foundation
import LifecycleCore
import LifecycleSQL
import Testing

/// An erasure the service cannot prove (README, "Erasure": the target's `verify` must count 0, else the step is
/// `unverified`, never counted as erased) through the real `serve`, and the operator's way out: the app removes
/// what was left, `lifecycle jobs retry ID` (a process of its own, on the store) sends the step back, and `serve`'s
/// runner finishes it. Observed from outside: `jobs list --json`, the exit statuses and the app database.
@Suite("Unverified erasure through serve and jobs retry")
struct UnverifiedErasureProcessTests {
    static let subject = "000777.unverified.0001"

    /// The subject's one job as `lifecycle jobs list --json --sub` prints it.
    static func job(_ fixture: ServeFixture) async throws -> JSONValue? {
        let listed = try await fixture.lifecycle([
            "jobs", "list", "--sub", subject, "--json", "--config", fixture.configurationFile,
        ])
        guard listed.status == 0 else { return nil }
        return JSONValue.parseIfValid(Array(listed.output.utf8))?["jobs"]?.arrayValue?.first
    }

    @Test(
        "rows the verify query still counts leave the step unverified; after the app removes them, jobs retry gets it erased"
    )
    func unverifiedThenRetried() async throws {
        // The statements delete the user but not the comments, which the verify query counts too.
        let target: JSONObject = [
            "app-db": [
                "type": "sqlite", "path": "app.sqlite", "statements": ["DELETE FROM users WHERE apple_sub = :sub"],
                "verify":
                    "SELECT (SELECT count(*) FROM users WHERE apple_sub = :sub) + (SELECT count(*) FROM comments WHERE apple_sub = :sub)",
            ]
        ]
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: target)],
            extra: ["erasure": ["pollMilliseconds": 100]])
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject])
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.subject)).status == 200)

        let unverified = await eventually(timeout: .seconds(20)) {
            (try? await Self.job(fixture))?["status"] == "unverified"
        }
        #expect(unverified, "\(fixture.log.suffix(2000))")
        let job = try #require(try await Self.job(fixture))
        let step = try #require(job["steps"]?.arrayValue?.first { $0["target"] == "app-db" })
        #expect(step["status"] == "unverified")
        #expect(step["verification_count"]?.integerValue == 2, "the two comments: \(step)")
        #expect(step["error_code"] == "verification_nonzero", "\(step)")
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 0)
        // Not counted as erased: the job is not completed, and it stays so while nothing changes.
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Self.job(fixture)?["status"] == "unverified")

        // The app removes what was left; the operator sends the step round again from another process.
        let database = try ExternalSQLiteDatabase(
            path: fixture.directory.file("app.sqlite"), busyTimeoutMilliseconds: 1000)
        _ = try database.executeInTransaction(
            ["DELETE FROM comments WHERE apple_sub = :sub"], parameters: ["sub": Self.subject])
        database.close()
        let id = try #require(job["id"]?.integerValue)
        // Through the running serve's admin API (README: jobs … with --url); the second retry below goes to the
        // store.
        let retried = try await fixture.lifecycle(["jobs", "retry", String(id)] + fixture.throughAdminAPI)
        #expect(retried.status == 0, "\(retried)")

        let completed = await eventually(timeout: .seconds(20)) {
            (try? await Self.job(fixture))?["status"] == "completed"
        }
        #expect(completed, "\(fixture.log.suffix(2000))")
        let done = try #require(try await Self.job(fixture)?["steps"]?.arrayValue?.first { $0["target"] == "app-db" })
        #expect(done["status"] == "done", "\(done)")
        #expect(done["verification_count"]?.integerValue == 0, "\(done)")
        let again = try await fixture.lifecycle(["jobs", "retry", String(id), "--config", fixture.configurationFile])
        #expect(again.status == 1, "nothing left to retry: \(again)")
        #expect(await fixture.stop() == [0])
    }
}
