import Foundation
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// A Google deletion next to an Apple one, through the real `lifecycle serve`, `lifecycle reconcile` and
/// `lifecycle report`: Google's RISC pushes `account-purged` (Google's profile: no `typ`, `aud` the client ID,
/// the subject in the event) to the fake transmitter's receiver path, Apple sends `account-delete`, both are
/// erased, then the app's own records, which keep Google's `sub` with a `provider` column, are reconciled and
/// the period's report is written and verified. Everything is observed from outside: exit codes, the report
/// files, the admin API.
@Suite("Google and Apple deletions through reconcile and reports", .serialized)
struct ProviderReconcileReportTests {
    typealias Signals = SecurityEventEndpointTests

    /// The app `shop` with Apple, a `google-risc` provider of the fake, an erasure target on its `users`
    /// table (`:provider_sub`: Apple's or Google's own `sub`) and its records as a CSV export.
    static func start(_ fake: FakeTransmitter) async throws -> ServeFixture {
        let target: JSONObject = [
            "app-db": [
                "type": "sqlite", "path": "shop.sqlite",
                "statements": ["DELETE FROM users WHERE apple_sub = :provider_sub"],
                "verify": "SELECT count(*) FROM users WHERE apple_sub = :provider_sub",
            ]
        ]
        var app =
            ServeFixture.app(erasureTargets: target, records: ["type": "csv", "path": "records.csv"]).objectValue
            ?? [:]
        app["signals"] = [
            [
                "provider": "google-risc", "jwks": .string(fake.baseURL + "/jwks"),
                "audience": [.string(Signals.googleClientID)],
            ]
        ]
        // A step that fails once (a busy file on a loaded machine) is retried within a second, not after up to
        // the production minute.
        let fixture = try await ServeFixture(
            apps: [.object(app)], extra: ["erasure": ["pollMilliseconds": 100, "baseDelayMilliseconds": 500]],
            environment: ["SSL_CERT_FILE": fake.caFile])
        try fixture.createAppDatabase("shop.sqlite", subjects: [TestFixtures.subject, "google-gone", "google-kept"])
        do {
            try await fixture.start()
        } catch {
            Issue.record("serve did not start: \(fixture.log)")
            throw error
        }
        // `/readyz` is ready on Apple's keys alone; Google's set loads in the background beside it. Nothing is
        // pushed before it is loaded, so no push waits on that first fetch under its own timeout.
        let loaded = await eventually(timeout: .seconds(120)) {
            guard let ready = try? await fixture.publicClient(timeout: .seconds(30)).get("/readyz") else {
                return false
            }
            return JSONValue.parseIfValid(ready.body)?["signalKeys"]?["shop/google"]?.integerValue != nil
        }
        if !loaded { Issue.record("the google-risc key set never loaded: \(fixture.log)") }
        return fixture
    }

    /// A SET as Google's Cross-Account Protection sends it for the Google account `sub`.
    static func googleSET(_ fake: FakeTransmitter, event: String, sub: String) -> [UInt8] {
        fake.set(
            event: Signals.risc + event,
            body: ["subject": ["subject_type": "iss-sub", "iss": .string(Signals.googleIssuer), "sub": .string(sub)]],
            subject: nil, audience: .string(Signals.googleClientID), typ: nil,
            overrides: ["iss": .string(Signals.googleIssuer)])
    }

    static func googleKey(_ sub: String) -> String {
        Signals.key("google", sub, issuer: Signals.googleIssuer)
    }

    @Test(
        "an Apple and two Google deletions: records keyed by Google's sub match, the planted one is a google finding, and the verified report counts each provider"
    )
    func googleBesideApple() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let apple = try await fixture.post(fixture.notification(type: "account-delete", subject: TestFixtures.subject))
        #expect(apple.status == 200, "\(apple)")
        for (event, sub) in [
            ("account-purged", "google-gone"), ("account-purged", "google-kept"), ("account-enabled", "google-live"),
        ] {
            let pushed = try await fake.push(
                Self.googleSET(fake, event: event, sub: sub), to: fixture.publicClient(), path: Signals.googlePath)
            #expect(pushed.status == 202, "\(event) \(sub): \(pushed)")
        }
        let completed = await eventually(timeout: .seconds(120)) {
            let jobs = try? await fixture.admin("GET", "/v1/jobs?app=shop&status=completed")
            return jobs?.json?["jobs"]?.arrayValue?.count == 3
        }
        #expect(completed, "the Apple and both Google erasures complete: \(fixture.log)")
        let left = try [TestFixtures.subject, "google-gone", "google-kept"].map {
            try fixture.usersLeft($0, in: "shop.sqlite")
        }
        #expect(left == [0, 0, 0], "the app's rows of all three accounts are erased")

        // The app's export: Google's own `sub` with the provider; Apple's with none. google-kept is still
        // there though the store says deleted: the planted discrepancy.
        let records =
            "provider,sub,status\r\n,\(TestFixtures.subject),deleted\r\ngoogle,google-gone,deleted\r\n"
            + "google,google-kept,active\r\ngoogle,google-live,active\r\n"
        try Data(records.utf8).write(to: URL(fileURLWithPath: fixture.directory.file("records.csv")))
        let asOf = fixture.now.adding(seconds: 40 * 86_400).iso8601
        let run = try await fixture.lifecycle([
            "reconcile", "--config", fixture.configurationFile, "--as-of", asOf, "--json",
        ])
        #expect(run.status == 1, "a critical finding makes reconcile exit 1: \(run)")
        let runFindings =
            JSONValue.parseIfValid(Array(run.output.utf8))?["apps"]?.arrayValue?.first?["findings"]?.arrayValue ?? []
        let subjectFindings = runFindings.filter { $0["subject"] != nil }
        #expect(
            subjectFindings.map { "\($0["code"]?.stringValue ?? "-") \($0["provider"]?.stringValue ?? "-")" } == [
                "retained-after-deletion google"
            ],
            "only the planted record is a finding; every other record matched its account: \(run.output)")

        let findings = try await fixture.admin("GET", "/v1/findings?app=shop")
        let retained = findings.json?["findings"]?.arrayValue?.filter { $0["code"] == "retained-after-deletion" } ?? []
        #expect(retained.count == 1, "\(findings)")
        #expect(retained.first?["subject"]?.stringValue == Self.googleKey("google-kept"))
        #expect(retained.first?["provider"] == "google")
        #expect(
            findings.json?["findings"]?.arrayValue?.contains { $0["code"] == "unknown-to-service" } == false,
            "no record was taken for an account the service never saw: \(findings)")

        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let report = try RequestDecisionServeTests.reportJSON(fixture)
        #expect(report["schema"] == "accountlifecycle.deletion-report/5")
        let subjects = report["subjects"]?.arrayValue ?? []
        #expect(
            subjects.map { $0["provider"]?.stringValue ?? "" }.sorted() == ["apple", "google", "google"],
            "\(subjects)")
        #expect(subjects.allSatisfy { $0["eventType"] == "account-deleted" && $0["outcome"] == "completed" })
        let byProvider = report["summary"]?["byProvider"]?.arrayValue ?? []
        #expect(byProvider.map { $0["provider"] } == ["apple", "google"], "\(byProvider)")
        #expect(byProvider.map { $0["received"]?.integerValue } == [1, 2])
        #expect(byProvider.map { $0["completed"]?.integerValue } == [1, 2])
        #expect(report["summary"]?["total"]?["received"]?.integerValue == 3)
        let reportFinding = report["findings"]?["items"]?.arrayValue?.first { $0["code"] == "retained-after-deletion" }
        #expect(reportFinding?["provider"] == "google", "\(String(describing: reportFinding))")

        let csv = try RequestDecisionServeTests.reportFile(fixture, suffix: "-deletion-compliance.csv")
        // `provider` is the last column, after fields that may hold quoted commas.
        let rows = csv.split(separator: "\r\n").map { $0.split(separator: ",").last.map(String.init) ?? "" }
        #expect(rows.first == "provider", "the CSV's last column is provider: \(csv)")
        #expect(rows.dropFirst().sorted() == ["apple", "google", "google"], "\(csv)")
        let html = try RequestDecisionServeTests.reportFile(fixture, suffix: "-deletion-compliance.html")
        #expect(html.contains("<td data-provider=\"google\" data-figure=\"received\">2</td>"))
        #expect(html.contains("<td data-provider=\"apple\" data-figure=\"received\">1</td>"))

        let verified = try await fixture.lifecycle(["report", "verify", "--config", fixture.configurationFile])
        #expect(verified.status == 0, "\(verified)")
        #expect(await fixture.stop() == [0])
        await fake.stop()
    }

    @Test(
        "a record naming a provider the app lacks, and a bad recordSubject, stop lifecycle reconcile with one line naming them"
    )
    func badProviderRecords() async throws {
        let app = ServeFixture.app(records: ["type": "csv", "path": "records.csv"])
        let fixture = try await ServeFixture(apps: [app])
        try fixture.updateConfiguration { configuration in
            guard case .object(var shop)? = configuration["apps"]?.arrayValue?.first else { return }
            shop["signals"] = [
                [
                    "provider": "google-risc", "jwks": "https://127.0.0.1:9/jwks",
                    "audience": [.string(Signals.googleClientID)],
                ]
            ]
            configuration["apps"] = [.object(shop)]
        }
        try Data("sub,provider\r\n\(TestFixtures.subject),\r\n7375626A656374,okta\r\n".utf8)
            .write(to: URL(fileURLWithPath: fixture.directory.file("records.csv")))
        let unknown = try await fixture.lifecycle(["reconcile", "--config", fixture.configurationFile])
        #expect(unknown.status == 2, "\(unknown)")
        #expect(unknown.errorLines.count == 1, "one line: \(unknown.errors)")
        #expect(
            unknown.errors.contains(
                "records.csv:3: provider \"okta\" is not one of the app's providers (apple, google)"),
            "\(unknown)")
        #expect(!unknown.errors.contains("7375626A656374"), "the record's sub is not printed")

        try fixture.updateConfiguration { configuration in
            guard case .object(var shop)? = configuration["apps"]?.arrayValue?.first,
                case .object(var google)? = shop["signals"]?.arrayValue?.first
            else { return }
            google["recordSubject"] = ["format": "google-sub"]
            shop["signals"] = [.object(google)]
            configuration["apps"] = [.object(shop)]
        }
        let invalid = try await fixture.lifecycle(["reconcile", "--config", fixture.configurationFile])
        #expect(invalid.status == 2, "\(invalid)")
        #expect(invalid.errorLines.count == 1, "one line: \(invalid.errors)")
        #expect(
            invalid.errors.contains("apps[0].signals[0].recordSubject.format: unknown subject format google-sub"),
            "\(invalid)")
    }
}
