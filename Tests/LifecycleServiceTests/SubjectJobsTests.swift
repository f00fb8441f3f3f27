import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleServer

/// An operator finds one subject's erasure jobs, with their steps and evidence: in the account view
/// (`GET /v1/apps/{app}/accounts/{sub}`, `lifecycle account show`) and as a list filtered by subject
/// (`GET /v1/jobs?app=&sub=`, `lifecycle jobs list --app ID --sub SUB`; either alone too), on a running
/// `serve` process.
@Suite("A subject's erasure jobs")
struct SubjectJobsTests {
    static let subject = ServeProcessTests.subject
    static let otherSubject = ServeProcessTests.otherSubject

    @Test(
        "the account view and the jobs list by subject carry the subject's jobs with steps and evidence, and only them")
    func subjectJobs() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: ServeProcessTests.quickWork)
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject, Self.otherSubject])
        try await fixture.start()
        for subject in [Self.subject, Self.otherSubject] {
            #expect(
                try await fixture.post(fixture.notification(type: "account-delete", subject: subject)).status == 200)
        }
        let done = await eventually(timeout: .seconds(15)) {
            let jobs = try? await fixture.admin("GET", "/v1/jobs?status=completed")
            return jobs?.json?["jobs"]?.arrayValue?.count == 2
        }
        #expect(done)
        let path = "/v1/apps/shop/accounts/" + PercentDecoding.encode(Self.subject)

        let account = try await fixture.admin("GET", path)
        #expect(account.status == 200)
        let jobs = try #require(account.json?["erasureJobs"]?.arrayValue, "\(String(describing: account.json))")
        #expect(jobs.count == 1, "only this subject's job")
        let steps = try #require(jobs.first?["steps"]?.arrayValue)
        #expect(steps.map { $0["target"]?.stringValue } == ["app-db", "self"])
        #expect(steps.first?["rows_affected"] == 1)
        #expect(steps.first?["verification_count"] == 0)
        #expect(jobs.first?["status"] == "completed")

        let listed = try await fixture.admin("GET", "/v1/jobs?app=shop&sub=" + PercentDecoding.encode(Self.subject))
        #expect(listed.status == 200)
        #expect(listed.json?["jobs"]?.arrayValue?.map { $0["id"] } == jobs.map { $0["id"] })
        // Every combination the OpenAPI file allows is answered (schemathesis holds the server to it): sub alone
        // is that subject's jobs in every app, app alone that app's jobs.
        let subOnly = try await fixture.admin("GET", "/v1/jobs?sub=" + PercentDecoding.encode(Self.subject))
        #expect(subOnly.status == 200)
        #expect(subOnly.json?["jobs"]?.arrayValue?.map { $0["id"] } == jobs.map { $0["id"] }, "only this subject's")
        let appOnly = try await fixture.admin("GET", "/v1/jobs?app=shop&limit=1")
        #expect(appOnly.json?["jobs"]?.arrayValue?.count == 1 && appOnly.json?["next"] != .null, "a full page")
        let appAll = try await fixture.admin("GET", "/v1/jobs?app=shop")
        #expect(appAll.json?["jobs"]?.arrayValue?.count == 2, "both of the app's jobs")
        #expect(try await fixture.admin("GET", "/v1/jobs?app=nope").status == 404)

        let shown = try await fixture.lifecycle([
            "account", "show", "--app", "shop", "--sub", Self.subject, "--url", fixture.adminURL, "--token-file",
            fixture.directory.file("secrets/admin-token"),
        ])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.output.contains("erasure jobs:"), "\(shown.output)")
        #expect(shown.output.contains("app-db done"), "\(shown.output)")
        #expect(shown.output.contains("1 row"), "\(shown.output)")
        let shownJSON = try await fixture.lifecycle([
            "account", "show", "--app", "shop", "--sub", Self.subject, "--json", "--config", fixture.configurationFile,
        ])
        #expect(shownJSON.status == 0, "\(shownJSON)")
        #expect(
            JSONValue.parseIfValid(Array(shownJSON.output.utf8))?["erasureJobs"]?.arrayValue?.count == 1, "\(shownJSON)"
        )

        let cli = try await fixture.lifecycle([
            "jobs", "list", "--app", "shop", "--sub", Self.subject, "--json", "--config", fixture.configurationFile,
        ])
        #expect(cli.status == 0, "\(cli)")
        let cliJobs = JSONValue.parseIfValid(Array(cli.output.utf8))?["jobs"]?.arrayValue
        #expect(cliJobs?.map { $0["id"] } == jobs.map { $0["id"] }, "\(cli.output)")
        #expect(await fixture.stop() == [0])
    }
}
