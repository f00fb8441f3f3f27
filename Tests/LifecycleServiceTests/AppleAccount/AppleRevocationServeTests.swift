import AppleRESTFake
import Foundation
import LifecycleCore
import TestSupport
import Testing

/// Durable revocation through the real `lifecycle serve`: an in-app deletion on the admin API queues the
/// revocation in its transaction, the worker revokes at the stand-in Apple over TLS and proves it with a
/// `refresh_token` grant that must answer `invalid_grant`, and the deletion report shows the outcome. Observed
/// from outside: the fake's request log and token state, the admin API, `/metrics`, the report files.
@Suite("Apple token revocation through lifecycle serve")
struct AppleRevocationServeTests {
    static let subject = AppleTokenVaultServeTests.subject
    static var accountPath: String { "/v1/apps/shop/accounts/\(subject)" }

    /// The vault fixture, with retries fast enough for a test.
    static func start(_ setup: AppleTestSetup) async throws -> (fixture: ServeFixture, process: LifecycleProcess) {
        let fixture = try await AppleTokenVaultServeTests.start(setup)
        _ = await fixture.stop()
        try fixture.updateConfiguration { root in
            let apple = root["apple"] ?? [:]
            root["apple"] = apple.adding(
                "revocation",
                [
                    "baseDelayMilliseconds": 100, "maxDelayMilliseconds": 200, "pollMilliseconds": 50,
                    "leaseSeconds": 2,
                ])
        }
        return (fixture, try await fixture.start())
    }

    /// Sets `apple.revocation.maxAttempts` in a configuration object.
    static func setRevocationAttempts(_ attempts: Int, in root: inout JSONObject) {
        var revocation = root["apple"]?["revocation"]?.objectValue ?? [:]
        revocation["maxAttempts"] = .integer(Int64(attempts))
        var apple = root["apple"]?.objectValue ?? [:]
        apple["revocation"] = .object(revocation)
        root["apple"] = .object(apple)
    }

    /// Links the account with a sign-in's authorization code; the refresh token Apple issued.
    static func link(_ fixture: ServeFixture, _ setup: AppleTestSetup) async throws -> String {
        let code = setup.fake.issueAuthorizationCode(clientID: AppleTestSetup.nativeClientID, subject: subject)
        let linked = try await fixture.admin(
            "PUT", accountPath + "/link", body: AppleTokenVaultServeTests.body(["authorizationCode": .string(code)]))
        #expect(linked.status == 200 && linked.json?["appleToken"]?["state"] == "held", "\(linked)")
        return try #require(setup.fake.refreshTokens(subject: subject).first)
    }

    /// Waits until the vault shows `state` for the account.
    static func waitForVault(_ fixture: ServeFixture, _ state: String) async -> Bool {
        await eventually(timeout: .seconds(20)) {
            (try? await fixture.admin("GET", accountPath + "/apple-token"))?.json?["state"]?.stringValue == state
        }
    }

    /// Generates the deletion report over yesterday to tomorrow and returns its JSON document.
    static func report(_ fixture: ServeFixture) async throws -> JSONValue {
        let today = fixture.now.millisecondsSinceEpoch / ReportDays.millisecondsPerDay
        let generated = try await fixture.lifecycle([
            "report", "generate", "--app", "shop", "--from", ReportDays.date(today - 1), "--to",
            ReportDays.date(today + 2), "--config", fixture.configurationFile,
        ])
        #expect(generated.status == 0, "\(generated)")
        let file = try #require(
            fixture.reportFiles().first { $0.hasSuffix("-deletion-compliance.json") }, "\(fixture.reportFiles())")
        let bytes = try #require(FileManager.default.contents(atPath: fixture.directory.file("reports/" + file)))
        return try JSONValue.parse(Array(bytes))
    }

    @Test(
        "an in-app deletion revokes the held token at Apple and proves it with invalid_grant: revoked in the vault, verified in the report, counted"
    )
    func revokedAndVerified() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup).fixture
        let refreshToken = try await Self.link(fixture, setup)
        let deleted = try await fixture.admin("POST", Self.accountPath + "/deletion")
        #expect(deleted.status == 200, "\(deleted)")

        #expect(await Self.waitForVault(fixture, "revoked"), "the vault never showed the token revoked")
        #expect(!setup.fake.isActive(refreshToken: refreshToken), "Apple still honours the token")
        let revokes = setup.fake.requests(to: .revoke)
        #expect(revokes.count == 1, "\(revokes)")
        #expect(revokes.first?.tokenTypeHint == "refresh_token")
        #expect(revokes.first?.clientID == AppleTestSetup.nativeClientID)
        #expect(revokes.first?.revokedGrant == true)
        let probes = setup.fake.requests(to: .token).filter { $0.grantType == "refresh_token" }
        #expect(probes.count == 1 && probes.first?.error == "invalid_grant", "\(probes)")

        let vault = try await fixture.admin("GET", Self.accountPath + "/apple-token")
        #expect(vault.json?["revokedAt"]?.stringValue != nil, "\(vault)")
        #expect(
            try await fixture.metric("lifecycle_apple_revocation_attempts_total", ["outcome": "verified"]) == 1)
        #expect(
            try await fixture.metric("lifecycle_apple_requests_total", ["endpoint": "revoke", "outcome": "ok"]) == 1)
        // README, "Metrics": the queue by status and the time from the deletion to the final outcome.
        let gauged = await eventually(timeout: .seconds(10)) {
            (try? await fixture.metric("lifecycle_apple_revocations", ["status": "verified"])) == 1
        }
        #expect(gauged, "lifecycle_apple_revocations{status=verified}")
        #expect(try await fixture.metric("lifecycle_apple_revocations", ["status": "pending"]) ?? 0 == 0)
        #expect(try await fixture.metric("lifecycle_apple_revocation_seconds_count", ["outcome": "verified"]) == 1)

        let document = try await Self.report(fixture)
        let row = try #require(
            document["subjects"]?.arrayValue?.first { $0["eventType"] == "in-app-deletion" }, "\(document)")
        #expect(row["appleRevocation"]?["status"] == "verified", "\(row)")
        #expect(row["appleRevocation"]?["verifiedAt"]?.stringValue != nil)
        #expect(row["appleRevocation"]?["advice"] == .null)
        #expect(document["summary"]?["appleRevocations"]?["verified"] == .integer(1), "\(document)")
        #expect(document["schema"] == "accountlifecycle.deletion-report/5")

        let exits = await fixture.stop()
        #expect(exits == [0], "serve exited \(exits); its log ends: \(fixture.log.suffix(3000))")
        let files = try ForensicScan.files(in: fixture.directory.path)
        #expect(ForensicScan.filesContaining(refreshToken, in: files) == [], "refresh token in plaintext")
        #expect(fixture.logEvents("apple.revocation").count == 1)
        await setup.fake.stop()
    }

    @Test("the erasure's self step, which destroys the token's data key, waits while the revocation is pending")
    func selfStepWaitsForTheRevocation() async throws {
        let setup = try AppleTestSetup()
        let (fixture, _) = try await Self.start(setup)
        _ = await fixture.stop()
        // An erasure mapping for in-app deletions: the app database first, then `self`.
        try fixture.writePolicy(
            """
            {"id": "immediate", "version": 1, "jurisdiction": "EU", "timezone": "UTC", "rules": [
              {"on": ["account-deleted", "in-app-deletion"], "erase": ["profile", "content"], "within": "P1M",
               "basis": "test"}]}
            """)
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.subject])
        try fixture.updateConfiguration { root in
            var app = root["apps"]?.arrayValue?.first?.objectValue ?? [:]
            app["policy"] = "immediate"
            app["targets"] = .object(ServeFixture.sqliteTarget("app.sqlite"))
            app["categories"] = ["profile": ["app-db", "self"], "content": ["self"]]
            root["apps"] = [.object(app)]
            root["erasure"] = ["pollMilliseconds": 50]
            // Apple fails until the test says otherwise: never give the revocation up meanwhile.
            Self.setRevocationAttempts(100, in: &root)
        }
        try await fixture.start()
        let refreshToken = try await Self.link(fixture, setup)
        setup.fake.setBehaviour(.serverError(status: 503), for: .revoke)
        #expect(try await fixture.admin("POST", Self.accountPath + "/deletion").status == 200)

        @Sendable func steps() async -> [String: String] {
            let account = try? await fixture.admin("GET", Self.accountPath)
            let job = account?.json?["erasureJobs"]?.arrayValue?.first
            var found: [String: String] = [:]
            for step in job?["steps"]?.arrayValue ?? [] {
                if let target = step["target"]?.stringValue { found[target] = step["status"]?.stringValue }
            }
            return found
        }
        let appDone = await eventually(timeout: .seconds(20)) { await steps()["app-db"] == "done" }
        #expect(appDone, "\(fixture.log.suffix(2000))")
        // Apple keeps failing: revocation attempts go on, and `self` does not start.
        let retried = await eventually(timeout: .seconds(20)) { setup.fake.requests(to: .revoke).count >= 3 }
        #expect(retried, "\(setup.fake.requests(to: .revoke).count) revoke attempts")
        let waiting = await steps()
        #expect(waiting["self"] == "pending", "self ran while the revocation was pending: \(waiting)")
        #expect(try await fixture.admin("GET", Self.accountPath + "/apple-token").json?["state"] != "revoked")

        setup.fake.setBehaviour(.normal, for: .revoke)
        #expect(await Self.waitForVault(fixture, "revoked"), "the vault never showed the token revoked")
        let selfDone = await eventually(timeout: .seconds(20)) { await steps()["self"] == "done" }
        #expect(selfDone, "\(fixture.log.suffix(2000))")
        #expect(!setup.fake.isActive(refreshToken: refreshToken), "Apple still honours the token")
        #expect(await fixture.stop() == [0])
        await setup.fake.stop()
    }

    @Test("kill -9 after the deletion's commit, before Apple accepted a revoke: revoked after a restart, once")
    func survivesKill() async throws {
        let setup = try AppleTestSetup()
        let (fixture, running) = try await Self.start(setup)
        let refreshToken = try await Self.link(fixture, setup)
        setup.fake.setBehaviour(.serverError(status: 503), for: .revoke)
        #expect(try await fixture.admin("POST", Self.accountPath + "/deletion").status == 200)
        #expect(
            await eventually(timeout: .seconds(20)) { !setup.fake.requests(to: .revoke).isEmpty },
            "the worker never tried")
        running.kill(signal: SIGKILL)
        _ = await running.waitForExit()
        #expect(setup.fake.isActive(refreshToken: refreshToken), "not revoked before the kill")

        setup.fake.setBehaviour(.normal, for: .revoke)
        try await fixture.start()
        #expect(await Self.waitForVault(fixture, "revoked"), "not revoked after the restart")
        #expect(!setup.fake.isActive(refreshToken: refreshToken))
        // Apple ended the grant once, after the restart. A second accepted revoke is made only when the probe
        // after one could not answer (a timeout under load): every accepted revoke is followed by one probe.
        let accepted = setup.fake.requests(to: .revoke).filter { $0.status == 200 }
        #expect(accepted.filter(\.revokedGrant).count == 1, "revoked once: \(accepted)")
        let probes = setup.fake.requests(to: .token).filter { $0.grantType == "refresh_token" }
        #expect(accepted.count == probes.count, "one probe per accepted revoke: \(accepted.count), \(probes.count)")
        #expect(probes.last?.error == "invalid_grant")
        let document = try await Self.report(fixture)
        #expect(document["summary"]?["appleRevocations"]?["verified"] == .integer(1), "\(document)")
        _ = await fixture.stop()
        await setup.fake.stop()
    }

    /// README, "Apple token revocation": retried with backoff until `apple.revocation.maxAttempts`, then
    /// `failed`; the report then advises the user to revoke in Settings.
    @Test(
        "Apple failing every revoke: failed after apple.revocation.maxAttempts, counted, and failed with advice in the report"
    )
    func failedAfterMaxAttempts() async throws {
        let setup = try AppleTestSetup()
        let (fixture, _) = try await Self.start(setup)
        _ = await fixture.stop()
        try fixture.updateConfiguration { Self.setRevocationAttempts(3, in: &$0) }
        try await fixture.start()
        let refreshToken = try await Self.link(fixture, setup)
        setup.fake.setBehaviour(.serverError(status: 500), for: .revoke)
        #expect(try await fixture.admin("POST", Self.accountPath + "/deletion").status == 200)

        let failed = await eventually(timeout: .seconds(30)) {
            (try? await fixture.metric("lifecycle_apple_revocation_attempts_total", ["outcome": "failed"])) == 1
        }
        #expect(failed, "\(fixture.log.suffix(2000))")
        try await Task.sleep(for: .milliseconds(600))
        #expect(
            setup.fake.requests(to: .revoke).count == 3,
            "no attempt after the last: \(setup.fake.requests(to: .revoke).count)")
        #expect(setup.fake.isActive(refreshToken: refreshToken), "Apple never revoked it")
        let document = try await Self.report(fixture)
        let row = try #require(document["subjects"]?.arrayValue?.first, "\(document)")
        #expect(row["appleRevocation"]?["status"] == "failed", "\(row)")
        #expect(row["appleRevocation"]?["advice"]?.stringValue?.contains("TN3194") == true, "\(row)")
        _ = await fixture.stop()
        await setup.fake.stop()
    }

    @Test("Apple answers revoke 200 but keeps the token valid: revoked again, then unverified in the report")
    func unverified() async throws {
        let setup = try AppleTestSetup()
        setup.fake.keepsRevokedTokensValid = true
        let fixture = try await Self.start(setup).fixture
        let refreshToken = try await Self.link(fixture, setup)
        #expect(try await fixture.admin("POST", Self.accountPath + "/deletion").status == 200)
        #expect(await Self.waitForVault(fixture, "revoked"))
        #expect(setup.fake.isActive(refreshToken: refreshToken), "the fake kept it valid")
        // verifyAttempts defaults to 2: one revoke, one retried revoke, each followed by a probe that got tokens.
        #expect(setup.fake.requests(to: .revoke).count == 2)
        let probes = setup.fake.requests(to: .token).filter { $0.grantType == "refresh_token" }
        #expect(probes.count == 2 && probes.allSatisfy { $0.error == nil }, "\(probes)")
        #expect(
            try await fixture.metric("lifecycle_apple_revocation_attempts_total", ["outcome": "unverified"]) == 1)
        let document = try await Self.report(fixture)
        let row = try #require(document["subjects"]?.arrayValue?.first, "\(document)")
        #expect(row["appleRevocation"]?["status"] == "unverified", "\(row)")
        #expect(row["appleRevocation"]?["verifiedAt"] == .null)
        #expect(document["summary"]?["appleRevocations"]?["unverified"] == .integer(1))

        // The nightly reconcile turns it into a finding, for the app to tell the user (TN3194).
        let records = fixture.directory.file("records.jsonl")
        let line = JSONValue.object(["sub": .string(Self.subject), "status": "deleted"]).serialized()
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: records))
        try fixture.updateConfiguration { root in
            guard var app = root["apps"]?.arrayValue?.first?.objectValue else { return }
            app["records"] = ["type": "jsonl", "path": .string(records)]
            root["apps"] = [.object(app)]
        }
        let reconciled = try await fixture.lifecycle(["reconcile", "--json", "--config", fixture.configurationFile])
        #expect(reconciled.output.contains("revocation-unverified"), "\(reconciled)")
        _ = await fixture.stop()
        await setup.fake.stop()
    }

    @Test("lifecycle account delete, run on the store beside serve, queues the revocation too: serve revokes it")
    func accountDeleteCommand() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup).fixture
        let refreshToken = try await Self.link(fixture, setup)
        let deleted = try await fixture.lifecycle([
            "account", "delete", "--app", "shop", "--sub", Self.subject, "--config", fixture.configurationFile,
        ])
        #expect(deleted.status == 0, "\(deleted)")
        #expect(await Self.waitForVault(fixture, "revoked"), "the command's deletion was never revoked")
        #expect(!setup.fake.isActive(refreshToken: refreshToken))
        #expect(setup.fake.requests(to: .revoke).count == 1)
        _ = await fixture.stop()
        await setup.fake.stop()
    }

    @Test("no token held: nothing sent to Apple, and the report says so with the TN3194 advice")
    func noTokenHeld() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup).fixture
        #expect(try await fixture.admin("PUT", Self.accountPath + "/link").status == 200)
        #expect(try await fixture.admin("POST", Self.accountPath + "/deletion").status == 200)
        let document = try await Self.report(fixture)
        let row = try #require(document["subjects"]?.arrayValue?.first, "\(document)")
        #expect(row["appleRevocation"]?["status"] == "no-token", "\(row)")
        #expect(row["appleRevocation"]?["advice"]?.stringValue?.contains("TN3194") == true, "\(row)")
        #expect(document["summary"]?["appleRevocations"]?["no-token"] == .integer(1))
        let csv = try #require(fixture.reportFiles().first { $0.hasSuffix(".csv") })
        let text = try String(contentsOfFile: fixture.directory.file("reports/" + csv), encoding: .utf8)
        #expect(text.contains("apple_revocation") && text.contains("TN3194"), "\(text)")
        #expect(setup.fake.requests(to: .revoke).isEmpty)
        _ = await fixture.stop()
        await setup.fake.stop()
    }
}

/// UTC calendar days for report periods (`--from`, `--to` take `yyyy-MM-dd`).
enum ReportDays {
    static let millisecondsPerDay: Int64 = 86_400_000

    static func date(_ day: Int64) -> String {
        Instant(millisecondsSinceEpoch: day * millisecondsPerDay).iso8601.prefix(10).description
    }
}
