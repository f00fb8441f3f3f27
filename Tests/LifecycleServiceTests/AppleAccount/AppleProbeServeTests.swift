import AppleRESTFake
import Foundation
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import Synchronization
import TestSupport
import Testing

@testable import LifecycleEngine

/// The daily probe of held Apple refresh tokens through the real `lifecycle serve`, against the stand-in Apple
/// over TLS. The day is crossed with `LIFECYCLE_CLOCK_OFFSET_SECONDS`: tokens are linked at the real time, then
/// serve is restarted a day (or two) later, with the fake's clock moved along so the client secrets it checks
/// are not "from the future". Observed from outside: the fake's request log, the admin API, the webhooks,
/// `/metrics`, `/readyz` and the log.
@Suite("Apple daily token probe through lifecycle serve")
struct AppleProbeServeTests {
    static let subject = AppleTokenVaultServeTests.subject
    static var accountPath: String { "/v1/apps/shop/accounts/\(subject)" }
    static let webhookSecret = "probe-webhook-secret-0123456789abcdef"
    /// A day and an hour: every token linked at the real time is due.
    static let nextDay: Int64 = 90_000

    /// The fake's clock offset, moved with the serve processes'.
    final class Offset: Sendable {
        let seconds = Atomic<Int64>(0)
        var now: @Sendable () -> Instant {
            { FakeAppleAccountService.systemNow().adding(seconds: self.seconds.load(ordering: .relaxed)) }
        }
    }

    /// A policy whose consent-revoked rule would schedule an erasure job at once: a probe that assumed a
    /// revocation or deletion would show up as a job.
    static let revokingPolicy = """
        {
          "id": "immediate", "version": 1, "jurisdiction": "EU", "timezone": "UTC",
          "rules": [
            {"on": ["account-deleted", "consent-revoked"], "erase": ["profile", "content"], "within": "P1M",
             "basis": "test"}
          ]
        }
        """

    /// A serve fixture for `shop` with `signInWithApple` at the fake, a webhook, an erasure mapping and a quick
    /// probe round; not started.
    static func fixture(
        _ setup: AppleTestSetup, webhook: String, storage: JSONObject? = nil, masterKey: String? = nil,
        probe: JSONObject = [:]
    ) async throws -> ServeFixture {
        var environment = setup.environment
        if let masterKey { environment[MasterKeyring.environmentVariable] = masterKey }
        var extra: JSONObject = [
            "outbox": ["baseDelayMilliseconds": 50, "maxDelayMilliseconds": 200, "pollMilliseconds": 100]
        ]
        if let storage { extra["storage"] = .object(storage) }
        let fixture = try await ServeFixture(extra: extra, environment: environment)
        try fixture.writeSecret(webhookSecret, to: "secrets/shop-webhook")
        try fixture.writePolicy(revokingPolicy)
        try fixture.createAppDatabase("app.sqlite", subjects: [subject])
        let section = try setup.signInWithApple(directory: fixture.directory.path)
        var probeSettings: JSONObject = ["pollSeconds": 1, "retrySeconds": 2]
        for (key, value) in probe { probeSettings[key] = value }
        try fixture.updateConfiguration { root in
            root["apple"] = setup.appleSection.adding("probe", .object(probeSettings))
            root["apps"] = [
                ServeFixture.app(webhook: webhook, erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))
                    .adding(
                        "clientIds", [.string(AppleTestSetup.nativeClientID), .string(AppleTestSetup.webClientID)]
                    )
                    .adding("signInWithApple", section)
            ]
        }
        return fixture
    }

    /// Links `subject` with a sign-in's code through a serve at the real time; the refresh token Apple issued.
    static func link(_ fixture: ServeFixture, _ setup: AppleTestSetup, subject: String = subject) async throws
        -> String
    {
        let code = setup.fake.issueAuthorizationCode(clientID: AppleTestSetup.nativeClientID, subject: subject)
        let linked = try await fixture.admin(
            "PUT", "/v1/apps/shop/accounts/\(subject)/link",
            body: AppleTokenVaultServeTests.body(["authorizationCode": .string(code)]))
        #expect(linked.status == 200 && linked.json?["appleToken"]?["state"] == "held", "\(linked)")
        return try #require(setup.fake.refreshTokens(subject: subject).last)
    }

    /// Restarts serve `seconds` after the real time, the fake's clock with it.
    @discardableResult
    static func restart(_ fixture: ServeFixture, at seconds: Int64, _ offset: Offset) async throws -> LifecycleProcess {
        _ = await fixture.stop()
        offset.seconds.store(seconds, ordering: .relaxed)
        return try await fixture.start(environment: [SystemClock.offsetVariable: String(seconds)])
    }

    /// A started serve with its webhook receiver and the fake Apple, the default subject's token linked; `stop()`
    /// stops all three and expects serve's exit 0.
    struct Linked {
        let offset: Offset
        let setup: AppleTestSetup
        let receiver: WebhookReceiver
        let fixture: ServeFixture
        let token: String

        static func start() async throws -> Linked {
            let offset = Offset()
            let setup = try AppleTestSetup(now: offset.now)
            let receiver = try WebhookReceiver()
            let fixture = try await AppleProbeServeTests.fixture(setup, webhook: receiver.url)
            try await fixture.start()
            let token = try await AppleProbeServeTests.link(fixture, setup)
            return Linked(offset: offset, setup: setup, receiver: receiver, fixture: fixture, token: token)
        }

        func stop() async {
            #expect(await fixture.stop() == [0])
            await receiver.stop()
            await setup.fake.stop()
        }
    }

    /// The `refresh_token` grants the fake received for `token`.
    static func grants(_ setup: AppleTestSetup, _ token: String) -> [FakeAppleRequest] {
        setup.fake.requests(to: .token).filter { $0.grantType == "refresh_token" && $0.form["refresh_token"] == token }
    }

    static func account(_ fixture: ServeFixture) async throws -> JSONValue? {
        try await fixture.admin("GET", accountPath).json
    }

    @Test(
        "a consent revoked at Apple with no notification is found by the next day's probe: sessions ended, nothing erased, a credentials-invalid finding"
    )
    func lostRevocationFound() async throws {
        let linked = try await Linked.start()
        let (offset, setup, receiver, fixture, token) = (
            linked.offset, linked.setup, linked.receiver, linked.fixture, linked.token
        )
        #expect(setup.fake.invalidateAuthorizations(subject: Self.subject) == 1)
        // The same day: the link was the day's validation, nothing is probed.
        try await Task.sleep(for: .seconds(2))
        #expect(Self.grants(setup, token).isEmpty, "probed within a day of the link")

        try await Self.restart(fixture, at: Self.nextDay, offset)
        let found = await eventually(timeout: .seconds(20)) {
            (try? await Self.account(fixture))?["state"] == "consent-revoked"
        }
        #expect(found, "the probe never moved the account")
        let account = try #require(try await Self.account(fixture))
        let last = try #require(account["history"]?.arrayValue?.last, "\(account)")
        #expect(last["input"] == "credentials-invalid" && last["source"] == "reconciler", "\(last)")
        #expect(last["to"] == "consent-revoked" && last["disposition"] == "applied", "\(last)")
        let effects = last["effects"]?.arrayValue ?? []
        #expect(effects.contains(["effect": "terminate-sessions"]), "\(last)")
        #expect(!effects.contains { $0["effect"] == "schedule-policy" }, "no erasure assumed: \(last)")
        let jobs = try await fixture.admin("GET", "/v1/jobs")
        #expect(jobs.json?["jobs"]?.arrayValue?.isEmpty == true, "\(jobs)")
        #expect(try fixture.usersLeft(Self.subject, in: "app.sqlite") == 1, "the app's data is kept")

        let terminate = await eventually(timeout: .seconds(20)) {
            receiver.received.contains { $0.json?["type"] == "account.sessions.terminate" }
        }
        #expect(terminate, "no account.sessions.terminate webhook: \(receiver.received.map(\.json))")
        #expect(Self.grants(setup, token).count == 1 && Self.grants(setup, token).first?.error == "invalid_grant")
        #expect(try await fixture.metric("lifecycle_apple_probes_total", ["outcome": "invalid_grant"]) == 1)
        #expect(
            try await fixture.metric("lifecycle_apple_probe_duration_seconds_count", ["outcome": "invalid_grant"]) == 1)
        let vault = try await fixture.admin("GET", Self.accountPath + "/apple-token")
        #expect(vault.json?["state"] == "not-held", "the dead token is dropped: \(vault)")

        // The reconcile turns it into a finding for the app to confirm on the device.
        let records = fixture.directory.file("records.jsonl")
        let line = JSONValue.object(["sub": .string(Self.subject), "status": "active", "sessions": 0]).serialized()
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: records))
        try fixture.updateConfiguration { root in
            guard var app = root["apps"]?.arrayValue?.first?.objectValue else { return }
            app["records"] = ["type": "jsonl", "path": .string(records)]
            root["apps"] = [.object(app)]
        }
        let reconciled = try await fixture.lifecycle(
            ["reconcile", "--json", "--config", fixture.configurationFile],
            environment: [SystemClock.offsetVariable: String(Self.nextDay)])
        #expect(reconciled.output.contains("credentials-invalid"), "\(reconciled)")
        #expect(reconciled.output.contains("getCredentialState"), "\(reconciled)")
        let findings = try await fixture.admin("GET", "/v1/findings?app=shop")
        let finding = findings.json?["findings"]?.arrayValue?.first { $0["code"] == "credentials-invalid" }
        #expect(finding?["subject"] == .string(Self.subject) && finding?["severity"] == "warning", "\(findings)")
        let report = try await AppleRevocationServeTests.report(fixture)
        let items = report["findings"]?["items"]?.arrayValue ?? []
        #expect(items.contains { $0["code"] == "credentials-invalid" }, "the report carries the finding: \(items)")
        #expect(!report.serialized().contains(Self.subject), "the report shows pseudonyms only")
        #expect(!fixture.log.contains(token) && !fixture.log.contains(Self.subject), "token or sub in the log")
        await linked.stop()
    }

    @Test(
        "invalid_client changes no account, raises the alarm (log, metric, /readyz warning) and pauses the app's probing until a reload"
    )
    func clientRefusedPauses() async throws {
        let offset = Offset()
        let setup = try AppleTestSetup(now: offset.now)
        let receiver = try WebhookReceiver()
        let fixture = try await Self.fixture(setup, webhook: receiver.url)
        try await fixture.start()
        let token = try await Self.link(fixture, setup)
        setup.fake.setBehaviour(.invalidClient, for: .token)

        let process = try await Self.restart(fixture, at: Self.nextDay, offset)
        let paused = await eventually(timeout: .seconds(20)) {
            (try? await fixture.metric("lifecycle_apple_probe_paused", ["app": "shop"])) == 1
        }
        #expect(paused, "probing never paused")
        #expect(try await fixture.metric("lifecycle_apple_probes_total", ["outcome": "client_refused"]) == 1)
        let ready = try await fixture.publicClient().get("/readyz")
        #expect(ready.status == 200, "still ready: notifications are received")
        let warnings = JSONValue.parseIfValid(ready.body)?["warnings"]?.arrayValue ?? []
        #expect(
            warnings.contains { $0.stringValue?.contains("shop") == true },
            "\(String(decoding: ready.body, as: UTF8.self))")
        let alarm = try #require(fixture.logEvents("apple.probe_paused").first)
        #expect(alarm["app"] == "shop" && alarm["error"] == "invalid_client" && alarm["level"] == "error", "\(alarm)")
        #expect(alarm["subject"] == nil, "no subject in the alarm")

        // Paused: rounds pass (1 s apart) without another grant; the account and its token are untouched.
        try await Task.sleep(for: .seconds(3))
        #expect(Self.grants(setup, token).count == 1, "\(Self.grants(setup, token).count) grants while paused")
        #expect(try await Self.account(fixture)?["state"] == "linked")
        #expect(try await fixture.admin("GET", Self.accountPath + "/apple-token").json?["state"] == "held")

        // Credentials fixed, reloaded: the refused probe was given back, so the token is still due today.
        setup.fake.setBehaviour(.normal, for: .token)
        try await fixture.reload(process)
        let probed = await eventually(timeout: .seconds(20)) {
            (try? await fixture.metric("lifecycle_apple_probes_total", ["outcome": "valid"])) == 1
        }
        #expect(probed, "not probed after the reload")
        #expect(try await fixture.metric("lifecycle_apple_probe_paused", ["app": "shop"]) == 0)
        let after = try await fixture.publicClient().get("/readyz")
        #expect(JSONValue.parseIfValid(after.body)?["warnings"] == nil)
        #expect(try await Self.account(fixture)?["state"] == "linked")
        #expect(await fixture.stop() == [0])
        await receiver.stop()
        await setup.fake.stop()
    }

    @Test("429 and 5xx change no account and give the day's probe back: the token is probed again later that day")
    func transientFailuresRetried() async throws {
        let linked = try await Linked.start()
        let (offset, setup, receiver, fixture, token) = (
            linked.offset, linked.setup, linked.receiver, linked.fixture, linked.token
        )
        setup.fake.setBehaviour(.rateLimited(retryAfter: nil), for: .token)

        try await Self.restart(fixture, at: Self.nextDay, offset)
        #expect(
            await eventually(timeout: .seconds(20)) {
                (try? await fixture.metric("lifecycle_apple_probes_total", ["outcome": "retry"])) == 1
            }, "the 429 was not retried")
        setup.fake.setBehaviour(.serverError(status: 503), for: .token)
        #expect(
            await eventually(timeout: .seconds(20)) {
                (try? await fixture.metric("lifecycle_apple_probes_total", ["outcome": "retry"])) == 2
            }, "the 503 was not retried")
        #expect(try await Self.account(fixture)?["state"] == "linked")
        setup.fake.setBehaviour(.normal, for: .token)
        #expect(
            await eventually(timeout: .seconds(20)) {
                (try? await fixture.metric("lifecycle_apple_probes_total", ["outcome": "valid"])) == 1
            }, "never probed again")
        let statuses = Self.grants(setup, token).map(\.status)
        #expect(statuses == [429, 503, 200], "\(statuses)")
        // Each retry waited apple.probe.retrySeconds (2 s), not the next 1 s round.
        #expect(fixture.logEvents("apple.probe_retry").count == 2)
        // Probed once today: no further grant in later rounds.
        try await Task.sleep(for: .seconds(3))
        #expect(Self.grants(setup, token).count == 3)
        #expect(try await Self.account(fixture)?["state"] == "linked")
        #expect(receiver.received.isEmpty, "no webhook: \(receiver.received.map(\.json))")
        await linked.stop()
    }

    @Test("a Retry-After longer than apple.probe.retrySeconds is the wait before the token is tried again")
    func retryAfterHonoured() async throws {
        let linked = try await Linked.start()
        let (offset, setup, fixture, token) = (linked.offset, linked.setup, linked.fixture, linked.token)
        setup.fake.setBehaviour(.rateLimited(retryAfter: "6"), for: .token)

        try await Self.restart(fixture, at: Self.nextDay, offset)
        #expect(
            await eventually(timeout: .seconds(20)) { fixture.logEvents("apple.probe_retry").count == 1 },
            "the 429 was not retried: \(fixture.log.suffix(2000))")
        #expect(fixture.logEvents("apple.probe_retry").first?["retryInSeconds"] == 6, "Apple's wait, not 2 s")
        setup.fake.setBehaviour(.normal, for: .token)
        // retrySeconds is 2 and the probe looks every second: without Retry-After a second grant comes by now.
        try await Task.sleep(for: .seconds(4))
        #expect(Self.grants(setup, token).map(\.status) == [429], "tried again before Apple's 6 s")
        #expect(
            await eventually(timeout: .seconds(15)) { Self.grants(setup, token).count == 2 }, "never tried again")
        #expect(Self.grants(setup, token).map(\.status) == [429, 200])
        await linked.stop()
    }

    @Test("apple.probe.maxPerSecond spaces one instance's grants: four due tokens at 1 a second take at least 3 s")
    func grantsPaced() async throws {
        let offset = Offset()
        let setup = try AppleTestSetup(now: offset.now)
        let receiver = try WebhookReceiver()
        let fixture = try await Self.fixture(setup, webhook: receiver.url, probe: ["maxPerSecond": 1])
        try await fixture.start()
        let subjects = (1...4).map { "001234.\($0)0a1b2c3d4e5f60718293a4b5c6d7e8f9.0956" }
        var tokens: [String] = []
        for subject in subjects { tokens.append(try await Self.link(fixture, setup, subject: subject)) }
        let linked = tokens
        let grants = { @Sendable in linked.flatMap { Self.grants(setup, $0) } }

        try await Self.restart(fixture, at: Self.nextDay, offset)
        #expect(await eventually(timeout: .seconds(20)) { grants().count == 4 }, "not every token was probed")
        // As the fake received them: three gaps of a second each at 1 a second.
        let times = grants().map(\.receivedAt).sorted()
        let spread = try #require(times.last) - (try #require(times.first))
        #expect(spread >= .milliseconds(2_500), "four grants within \(spread) at maxPerSecond 1")
        #expect(
            await eventually(timeout: .seconds(5)) {
                (try? await fixture.metric("lifecycle_apple_probes_total", ["outcome": "valid"])) == 4
            })
        #expect(await fixture.stop() == [0])
        await receiver.stop()
        await setup.fake.stop()
    }

    @Test(
        "two serve instances on one PostgreSQL probe each token once a day: once in the first window, once more after the clock moves 24 h on",
        .enabled(if: HarnessStore.postgresServer != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)")
    )
    func twoInstancesOncePerDay() async throws {
        let server = try #require(HarnessStore.postgresServer)
        let database = try await PostgresTestDatabase.create(serverURL: server)
        do {
            try await twoInstancesOncePerDay(databaseURL: database.url)
            await database.drop()
        } catch {
            await database.drop()
            throw error
        }
    }

    private func twoInstancesOncePerDay(databaseURL: String) async throws {
        let offset = Offset()
        let setup = try AppleTestSetup(now: offset.now)
        let receiver = try WebhookReceiver()
        let masterKey = Hex.encode(SecureRandom.bytes(count: 32))
        var instances: [ServeFixture] = []
        for _ in 0..<2 {
            instances.append(
                try await Self.fixture(
                    setup, webhook: receiver.url, storage: ["url": .string(databaseURL)], masterKey: masterKey,
                    probe: ["maxPerSecond": 50]))
        }
        try await instances[0].start()
        let subjects = (1...6).map { "001234.\($0)0a1b2c3d4e5f60718293a4b5c6d7e8f9.0955" }
        var linked: [String] = []
        for subject in subjects { linked.append(try await Self.link(instances[0], setup, subject: subject)) }
        let tokens = linked
        _ = await instances[0].stop()

        for (day, seconds) in [(1, Self.nextDay), (2, Self.nextDay + 86_400)] {
            offset.seconds.store(seconds, ordering: .relaxed)
            for instance in instances {
                try await instance.start(environment: [SystemClock.offsetVariable: String(seconds)])
            }
            let probed = await eventually(timeout: .seconds(30)) {
                tokens.allSatisfy { Self.grants(setup, $0).count >= day }
            }
            #expect(probed, "day \(day): \(tokens.map { Self.grants(setup, $0).count })")
            // Several more rounds of both instances (1 s apart): nothing probed twice in the window.
            try await Task.sleep(for: .seconds(3))
            #expect(tokens.map { Self.grants(setup, $0).count } == Array(repeating: day, count: tokens.count))
            var valid = 0.0
            for instance in instances {
                valid += try await instance.metric("lifecycle_apple_probes_total", ["outcome": "valid"]) ?? 0
            }
            #expect(valid == Double(tokens.count), "day \(day): \(valid) probes counted by the two instances")
            for instance in instances { #expect(await instance.stop() == [0]) }
        }
        await receiver.stop()
        await setup.fake.stop()
    }
}
