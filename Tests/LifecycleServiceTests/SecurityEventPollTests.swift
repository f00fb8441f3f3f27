import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import Synchronization
import TestSupport
import Testing

/// The real `lifecycle serve` polling a fake Shared Signals transmitter's poll endpoint (RFC 8936) over TLS on
/// loopback: the SETs it hands out change accounts as pushed ones do, and the fake's records (acks, setErrs,
/// what it still holds and how often it handed each SET out), the admin API and `/metrics` show what serve
/// did with them.
@Suite("Shared Signals poll delivery of lifecycle serve", .serialized)
struct SecurityEventPollTests {
    static let audience = SecurityEventEndpointTests.audience
    static let risc = SecurityEventEndpointTests.risc
    static let caep = SecurityEventEndpointTests.caep
    static let webhookSecret = SecurityEventEndpointTests.webhookSecret

    /// A serve process whose app `shop` has one `ssf` provider `idp` of the fake with poll delivery: the
    /// fake's poll endpoint as `pollURL` (unless `learnEndpoint`), fast poll timings, and `stream` merged in.
    static func serve(
        _ fake: FakeTransmitter, webhook: String? = nil, learnEndpoint: Bool = false, stream extra: JSONObject = [:],
        storage: JSONValue? = nil, tokenFromEnvironment: Bool = false
    ) async throws -> (fixture: ServeFixture, process: LifecycleProcess) {
        let target: JSONObject = [
            "app-db": [
                "type": "sqlite", "path": "shop.sqlite",
                "statements": ["DELETE FROM users WHERE apple_sub = :provider_sub"],
                "verify": "SELECT count(*) FROM users WHERE apple_sub = :provider_sub",
            ]
        ]
        var stream: JSONObject = [
            "delivery": "poll", "tokenFile": "secrets/idp-management-token", "pollIntervalMilliseconds": 100,
            "pollBackoffMaxMilliseconds": 400, "timeoutSeconds": 5,
        ]
        if !learnEndpoint { stream["pollURL"] = .string(fake.baseURL + FakePollEndpoint.path) }
        for member in extra { stream[member.key] = member.value }
        var environment = ["SSL_CERT_FILE": fake.caFile]
        if tokenFromEnvironment {
            stream["tokenFile"] = nil
            environment["LIFECYCLE_SIGNALS_MANAGEMENT_TOKEN_SHOP_IDP"] = FakeStreamService.managementToken
        }
        var app = ServeFixture.app(webhook: webhook, erasureTargets: target).objectValue ?? [:]
        app["signals"] = [
            [
                "provider": "ssf", "id": "idp", "issuer": .string(fake.issuer),
                "jwks": .string(fake.baseURL + "/jwks"), "audience": [.string(audience)], "stream": .object(stream),
            ]
        ]
        var top: JSONObject = ["erasure": ["pollMilliseconds": 100]]
        if let storage { top["storage"] = storage }
        let fixture = try await ServeFixture(apps: [.object(app)], extra: top, environment: environment)
        try fixture.writeSecret(FakeStreamService.managementToken + "\n", to: "secrets/idp-management-token")
        try fixture.writeSecret(webhookSecret, to: "secrets/shop-webhook")
        try fixture.createAppDatabase("shop.sqlite", subjects: ["user-purged"])
        fake.streams.configure { $0.audience = audience }
        do {
            return (fixture, try await fixture.start())
        } catch {
            Issue.record("serve did not start: \(fixture.log)")
            throw error
        }
    }

    /// Queues a SET of `event` for the `iss_sub` subject `sub` at the fake; its `jti`.
    @discardableResult
    static func enqueue(
        _ fake: FakeTransmitter, _ event: String, sub: String, body: JSONObject = [:],
        overrides: [String: JSONValue?] = [:]
    ) -> String {
        let jti = FakeTransmitter.makeJTI()
        let set = fake.set(
            event: event, body: body, subject: FakeTransmitter.issSub(sub, issuer: fake.issuer),
            audience: .string(audience), jti: jti, overrides: overrides)
        fake.poll.enqueue(set, jti: jti)
        return jti
    }

    static func key(_ fake: FakeTransmitter, _ sub: String) -> String {
        SecurityEventEndpointTests.key("idp", sub, issuer: fake.issuer)
    }

    static func account(_ fixture: ServeFixture, _ key: String) async throws -> (status: Int, json: JSONValue?) {
        try await SecurityEventEndpointTests.account(fixture, key)
    }

    static func acked(_ fake: FakeTransmitter, _ jtis: [String], timeout: Duration = .seconds(20)) async -> Bool {
        await eventually(timeout: timeout) { Set(jtis).isSubset(of: Set(fake.poll.acks)) }
    }

    @Test("polled SETs change accounts as pushed ones do; each is acknowledged after its commit")
    func goldenSETs() async throws {
        let fake = try FakeTransmitter()
        let receiver = try WebhookReceiver()
        let (fixture, _) = try await Self.serve(fake, webhook: receiver.url)
        let purged = Self.enqueue(fake, Self.risc + "account-purged", sub: "user-purged")
        let revoked = Self.enqueue(fake, Self.caep + "session-revoked", sub: "user-sessions")
        #expect(await Self.acked(fake, [purged, revoked]), "acks: \(fake.poll.acks), log: \(fixture.log.suffix(2000))")
        #expect(fake.poll.held.isEmpty)
        let deleted = try await Self.account(fixture, Self.key(fake, "user-purged"))
        #expect(deleted.json?["state"] == "deleted", "\(deleted)")
        #expect(deleted.json?["provider"] == "idp")
        #expect(deleted.json?["erasureJobs"]?.arrayValue?.count == 1, "account-purged schedules the erasure")
        let sessions = try await Self.account(fixture, Self.key(fake, "user-sessions"))
        #expect(sessions.json?["history"]?.arrayValue?.first?["input"] == "sessions-revoked", "\(sessions)")
        let sessionsKey = Self.key(fake, "user-sessions")
        let hooked = await eventually(timeout: .seconds(20)) {
            receiver.received.contains { $0.json?["data"]?["sub"]?.stringValue == sessionsKey }
        }
        #expect(hooked)
        let deliveries = receiver.received
        let hook = deliveries.first { $0.json?["data"]?["sub"]?.stringValue == sessionsKey }
        #expect(hook?.json?["type"] == "account.sessions.terminate", "\(deliveries)")
        #expect(hook.map { WebhookReceiver.isSigned($0, secret: Self.webhookSecret) } == true)
        let erased = await eventually(timeout: .seconds(20)) {
            (try? fixture.usersLeft("user-purged", in: "shop.sqlite")) == 0
        }
        #expect(erased, "the app's rows of the purged account are erased")
        // What a real transmitter is sent: RFC 8936 §2.1's members, the stream's bearer token (the fake checks).
        let first = try #require(fake.poll.polls.first)
        #expect(first["maxEvents"] == 100)
        #expect(first["returnImmediately"] == true)
        #expect(fake.poll.statuses.allSatisfy { $0 == 200 }, "\(fake.poll.statuses)")
        #expect(
            try await fixture.metric("lifecycle_signal_poll_acks_total", ["app": "shop", "provider": "idp"]) == 2)
        #expect(
            try await fixture.metric(
                "lifecycle_security_events_total", ["provider": "idp", "type": "account-purged", "outcome": "accepted"])
                == 1)
        let ok = try await fixture.metric(
            "lifecycle_signal_polls_total", ["app": "shop", "provider": "idp", "result": "ok"])
        #expect((ok ?? 0) >= 2)
        // README, "Shared Signals": the SETs the polls carried, by outcome.
        #expect(
            try await fixture.metric(
                "lifecycle_signal_poll_sets_total", ["app": "shop", "provider": "idp", "outcome": "accepted"]) == 2)
        // A poll provider's push path is not served: its transmitter never pushes.
        let set = fake.set(
            event: Self.caep + "session-revoked", subject: FakeTransmitter.issSub("user-pushed", issuer: fake.issuer),
            audience: .string(Self.audience))
        #expect(try await fake.push(set, to: fixture.publicClient(), path: "/signals/shop/idp").status == 404)
        await receiver.stop()
        await fake.stop()
    }

    @Test("a SET that can never be accepted is reported in setErrs with its RFC 8935 err, and applies nothing")
    func setErrs() async throws {
        let fake = try FakeTransmitter()
        let (fixture, _) = try await Self.serve(fake)
        let purged = Self.risc + "account-purged"
        let audience = Self.enqueue(
            fake, purged, sub: "user-bad", overrides: ["aud": "https://elsewhere.example/"])
        let issuer = Self.enqueue(fake, purged, sub: "user-bad", overrides: ["iss": "https://evil.example/"])
        let garbage = "garbage-" + FakeTransmitter.makeJTI()
        fake.poll.enqueue(Array("not a token".utf8), jti: garbage)
        let kid = FakeTransmitter.makeJTI()
        fake.poll.enqueue(
            fake.set(
                event: purged, subject: FakeTransmitter.issSub("user-bad", issuer: fake.issuer),
                audience: .string(Self.audience), jti: kid, header: ["kid": "rotated-away"]), jti: kid)
        // A SET under another jti than its own: the ack must name what was stored.
        let misfiled = "misfiled-" + FakeTransmitter.makeJTI()
        fake.poll.enqueue(
            fake.set(
                event: purged, subject: FakeTransmitter.issSub("user-bad", issuer: fake.issuer),
                audience: .string(Self.audience)), jti: misfiled)
        let good = Self.enqueue(fake, Self.caep + "session-revoked", sub: "user-good")
        let settled = await eventually(timeout: .seconds(20)) { fake.poll.held.isEmpty }
        #expect(settled, "held: \(fake.poll.held), log: \(fixture.log.suffix(2000))")
        let expected = [
            (audience, "invalid_audience"), (issuer, "invalid_issuer"), (garbage, "invalid_request"),
            (kid, "invalid_key"), (misfiled, "invalid_request"),
        ]
        for (jti, err) in expected {
            let reported = fake.poll.setErr(jti)
            #expect(reported?.err == err, "\(jti): \(String(describing: reported))")
            #expect(reported?.description.isEmpty == false)
            #expect(!fake.poll.acks.contains(jti), "a refused SET is not acknowledged")
        }
        #expect(fake.poll.acks == [good])
        #expect(try await Self.account(fixture, Self.key(fake, "user-bad")).status == 404)
        #expect(try await Self.account(fixture, Self.key(fake, "user-good")).status == 200)
        #expect(
            try await fixture.metric(
                "lifecycle_signal_poll_set_errors_total", ["app": "shop", "provider": "idp", "err": "invalid_request"])
                == 2)
        await fake.stop()
    }

    @Test("a SET handed out again after its ack is acknowledged again and stored once")
    func duplicates() async throws {
        let fake = try FakeTransmitter()
        let (fixture, _) = try await Self.serve(fake)
        let jti = FakeTransmitter.makeJTI()
        let set = fake.set(
            event: Self.caep + "session-revoked", subject: FakeTransmitter.issSub("user-dup", issuer: fake.issuer),
            audience: .string(Self.audience), jti: jti)
        fake.poll.enqueue(set, jti: jti)
        #expect(await Self.acked(fake, [jti]))
        fake.poll.enqueue(set, jti: jti)
        let twice = await eventually(timeout: .seconds(20)) { fake.poll.acks.filter { $0 == jti }.count == 2 }
        #expect(twice, "acks: \(fake.poll.acks)")
        let account = try await Self.account(fixture, Self.key(fake, "user-dup"))
        #expect(account.json?["history"]?.arrayValue?.count == 1, "\(account)")
        #expect(
            try await fixture.metric(
                "lifecycle_security_events_total",
                ["provider": "idp", "type": "session-revoked", "outcome": "duplicate"]) == 1)
        await fake.stop()
    }

    @Test("a kill -9 after the commit and before the ack: restarted, the SETs come again and apply exactly once")
    func killNineBeforeAck() async throws {
        let fake = try FakeTransmitter()
        // Every poll carrying an ack is refused, so serve stores the SETs but can never acknowledge them.
        fake.poll.configure { $0.refuseReports = true }
        // Queued before serve starts, so its first poll gets all of them (later polls carry acks: refused).
        let subjects = (0..<5).map { "user-crash-\($0)" }
        let jtis = subjects.map { Self.enqueue(fake, Self.risc + "account-disabled", sub: $0) }
        let (fixture, process) = try await Self.serve(fake)
        // serve acknowledges only after the commit: a (refused) poll carrying every jti says all are stored.
        let triedToAck = await eventually(timeout: .seconds(20)) {
            fake.poll.polls.contains { poll in
                Set(jtis).isSubset(of: Set(poll["ack"]?.arrayValue?.compactMap(\.stringValue) ?? []))
            }
        }
        #expect(triedToAck, "polls: \(fake.poll.polls.suffix(3)), log: \(fixture.log.suffix(1500))")
        for sub in subjects {
            let account = try await Self.account(fixture, Self.key(fake, sub))
            #expect(account.json?["state"] == "consent-revoked", "stored before the ack: \(account)")
        }
        #expect(fake.poll.acks.isEmpty, "no ack got through")
        #expect(fake.poll.statuses.contains(503), "serve tried to acknowledge: \(fake.poll.statuses)")
        process.kill(signal: SIGKILL)
        _ = await process.waitForExit()
        fake.poll.configure { $0.refuseReports = false }
        try await fixture.start()
        #expect(await Self.acked(fake, jtis), "acks: \(fake.poll.acks)")
        #expect(fake.poll.held.isEmpty)
        for jti in jtis { #expect(fake.poll.deliveries(jti) >= 2, "handed out again after the restart") }
        for sub in subjects {
            let account = try await Self.account(fixture, Self.key(fake, sub))
            #expect(account.json?["state"] == "consent-revoked")
            #expect(account.json?["history"]?.arrayValue?.count == 1, "\(sub): \(account)")
        }
        #expect(
            try await fixture.metric(
                "lifecycle_security_events_total",
                ["provider": "idp", "type": "account-disabled", "outcome": "duplicate"]) == 5)
        await fake.stop()
    }

    @Test("garbage, a 500, an answer too large and one of the wrong shape are counted and logged; serve polls on")
    func badAnswers() async throws {
        let fake = try FakeTransmitter()
        fake.poll.configure {
            $0.faults = [.garbage, .status(500), .huge(bytes: 200_000), .wrongShape]
        }
        let (fixture, _) = try await Self.serve(fake, stream: ["pollMaxResponseBytes": 65_536])
        let jti = Self.enqueue(fake, Self.caep + "session-revoked", sub: "user-after-faults")
        #expect(await Self.acked(fake, [jti]), "log: \(fixture.log.suffix(3000))")
        #expect(try await fixture.publicClient().get("/healthz").status == 200)
        let labels = { (result: String) in ["app": "shop", "provider": "idp", "result": result] }
        #expect(try await fixture.metric("lifecycle_signal_polls_total", labels("malformed")) == 2)
        #expect(try await fixture.metric("lifecycle_signal_polls_total", labels("http_error")) == 1)
        #expect(try await fixture.metric("lifecycle_signal_polls_total", labels("transport_error")) == 1)
        let failures = fixture.logEvents("signal.poll_failed")
        #expect(failures.count == 4, "\(failures)")
        #expect(failures.allSatisfy { $0["provider"] == "idp" && $0["error"]?.stringValue?.isEmpty == false })
        #expect(!fixture.log.contains("aaaaaaaa"), "no answer content in the log")
        #expect(try await Self.account(fixture, Self.key(fake, "user-after-faults")).status == 200)
        await fake.stop()
    }

    @Test("on SIGTERM the worker reports the acks it still holds in one last poll with maxEvents 0, then exits 0")
    func lastPollOnStop() async throws {
        let fake = try FakeTransmitter()
        // Long waits after a failed poll: only SIGTERM's last poll can carry the held ack within the test.
        fake.poll.configure { $0.refuseReports = true }
        let jti = Self.enqueue(fake, Self.risc + "account-purged", sub: "user-purged")
        let (fixture, _) = try await Self.serve(
            fake, stream: ["pollIntervalMilliseconds": 30_000, "pollBackoffMaxMilliseconds": 60_000])
        let refused = await eventually(timeout: .seconds(20)) {
            fake.poll.polls.contains { $0["ack"]?.arrayValue?.contains(.string(jti)) == true }
        }
        #expect(refused, "the ack was offered and refused (503): \(fake.poll.statuses)")
        #expect(try await Self.account(fixture, Self.key(fake, "user-purged")).json?["state"] == "deleted")
        #expect(fake.poll.acks.isEmpty)
        fake.poll.configure { $0.refuseReports = false }
        let before = fake.poll.polls.count

        #expect(await fixture.stop() == [0])
        let last = fake.poll.polls.dropFirst(before)
        #expect(last.count == 1, "one last poll: \(Array(last))")
        #expect(last.first?["maxEvents"] == 0, "it asks for nothing more")
        #expect(fake.poll.acks == [jti], "the held ack reached the transmitter")
        #expect(fake.poll.held.isEmpty)
        await fake.stop()
    }

    @Test(
        "stream create asks for poll delivery; serve learns the poll endpoint from the stream and stops on SIGTERM")
    func learntEndpoint() async throws {
        let fake = try FakeTransmitter()
        let (fixture, _) = try await Self.serve(fake, learnEndpoint: true)
        let created = try await fixture.lifecycle([
            "signals", "stream", "create", "--app", "shop", "--provider", "idp", "--json",
        ])
        #expect(created.status == 0, "\(created)")
        let delivery = fake.streams.streams.first?["delivery"]
        #expect(delivery?["method"] == "urn:ietf:rfc:8936")
        #expect(delivery?["endpoint_url"]?.stringValue == fake.baseURL + FakePollEndpoint.path)
        let jti = Self.enqueue(fake, Self.risc + "account-purged", sub: "user-purged")
        #expect(await Self.acked(fake, [jti]), "log: \(fixture.log.suffix(2000))")
        #expect(fixture.logEvents("signal.poll_endpoint").count == 1)
        #expect(try await Self.account(fixture, Self.key(fake, "user-purged")).json?["state"] == "deleted")
        #expect(await fixture.stop() == [0], "SIGTERM stops the poll worker and serve exits 0")
        await fake.stop()
    }

    /// README: the stream's bearer token from `stream.tokenFile` or `LIFECYCLE_SIGNALS_MANAGEMENT_TOKEN_<APP>_<ID>`.
    @Test(
        "with no tokenFile, LIFECYCLE_SIGNALS_MANAGEMENT_TOKEN_SHOP_IDP is the bearer token of polls and stream management"
    )
    func managementTokenFromEnvironment() async throws {
        let fake = try FakeTransmitter()
        let (fixture, _) = try await Self.serve(fake, learnEndpoint: true, tokenFromEnvironment: true)
        let created = try await fixture.lifecycle(["signals", "stream", "create", "--app", "shop", "--provider", "idp"])
        #expect(created.status == 0, "the transmitter took the token from the variable: \(created)")
        let jti = Self.enqueue(fake, Self.risc + "account-purged", sub: "user-purged")
        #expect(await Self.acked(fake, [jti]), "log: \(fixture.log.suffix(2000))")
        #expect(fake.poll.statuses.allSatisfy { $0 == 200 }, "every poll carried the token: \(fake.poll.statuses)")
        #expect(await fixture.stop() == [0])
        await fake.stop()
    }

    @Test(
        "a learnt poll endpoint that answers 404 or 410 is learnt again from the stream configuration",
        arguments: [404, 410])
    func relearntEndpoint(status: Int) async throws {
        let fake = try FakeTransmitter()
        fake.streams.configure { $0.pollPath = "/poll-moved-away" }
        // Nothing is served there (404), or the fake says the endpoint is gone for good (410).
        if status != 404 { fake.answer("/poll-moved-away", status: try HTTPStatus(code: status), body: [:]) }
        let (fixture, _) = try await Self.serve(fake, learnEndpoint: true)
        let created = try await fixture.lifecycle(["signals", "stream", "create", "--app", "shop", "--provider", "idp"])
        #expect(created.status == 0, "\(created)")
        let refused = await eventually(timeout: .seconds(20)) {
            fake.requestCount("/poll-moved-away") >= 1
                && fixture.logEvents("signal.poll_failed").contains { $0["result"] == "http_error" }
        }
        #expect(refused, "serve polled the endpoint it learnt, which answers \(status): \(fixture.log.suffix(2000))")
        // The transmitter moves the stream's poll endpoint to where it answers.
        fake.streams.configure { state in
            for (id, var stream) in state.streams {
                guard var delivery = stream["delivery"]?.objectValue else { continue }
                delivery["endpoint_url"] = .string(fake.baseURL + FakePollEndpoint.path)
                stream["delivery"] = .object(delivery)
                state.streams[id] = stream
            }
        }
        let jti = Self.enqueue(fake, Self.risc + "account-purged", sub: "user-purged")
        #expect(await Self.acked(fake, [jti]), "log: \(fixture.log.suffix(2000))")
        #expect(fixture.logEvents("signal.poll_endpoint").count >= 2, "learnt, then learnt again")
        #expect(try await Self.account(fixture, Self.key(fake, "user-purged")).json?["state"] == "deleted")
        await fake.stop()
    }

    /// Changes the provider's `stream` object in the fixture's configuration file.
    static func changeStream(_ fixture: ServeFixture, _ change: @escaping (inout JSONObject) -> Void) throws {
        try fixture.updateConfiguration { configuration in
            guard case .array(var apps)? = configuration["apps"], case .object(var app) = apps[0],
                case .array(var signals)? = app["signals"], case .object(var provider) = signals[0],
                case .object(var stream)? = provider["stream"]
            else { return }
            change(&stream)
            provider["stream"] = .object(stream)
            signals[0] = .object(provider)
            app["signals"] = .array(signals)
            apps[0] = .object(app)
            configuration["apps"] = .array(apps)
        }
    }

    @Test("SIGHUP: new poll settings apply from the next poll, a refused reload changes nothing, a gone stream stops")
    func reload() async throws {
        let fake = try FakeTransmitter()
        let (fixture, process) = try await Self.serve(fake)
        #expect(await eventually(timeout: .seconds(10)) { !fake.poll.polls.isEmpty })
        // A poll stream whose bearer token cannot be read refuses the whole reload: nothing half-applies.
        try Self.changeStream(fixture) {
            $0["maxEvents"] = 9
            $0["tokenFile"] = "secrets/missing-token"
        }
        try await fixture.reload(process, expecting: "refused")
        let refusedAt = fake.poll.polls.count
        #expect(await eventually(timeout: .seconds(10)) { fake.poll.polls.count > refusedAt + 2 })
        #expect(fake.poll.polls.suffix(2).allSatisfy { $0["maxEvents"] == 100 }, "\(fake.poll.polls.suffix(2))")
        #expect(fake.poll.statuses.suffix(2).allSatisfy { $0 == 200 }, "the running token is kept")
        try Self.changeStream(fixture) {
            $0["maxEvents"] = 7
            $0["tokenFile"] = "secrets/idp-management-token"
        }
        try await fixture.reload(process)
        let seven = await eventually(timeout: .seconds(10)) { fake.poll.polls.last?["maxEvents"] == 7 }
        #expect(seven, "\(fake.poll.polls.suffix(3))")
        let jti = Self.enqueue(fake, Self.caep + "session-revoked", sub: "user-reloaded")
        #expect(await Self.acked(fake, [jti]))
        try fixture.updateConfiguration { configuration in
            guard case .array(var apps)? = configuration["apps"], case .object(var app) = apps[0] else { return }
            app["signals"] = nil
            apps[0] = .object(app)
            configuration["apps"] = .array(apps)
        }
        try await fixture.reload(process)
        try await Task.sleep(for: .milliseconds(500))
        let settled = fake.poll.polls.count
        try await Task.sleep(for: .seconds(1))
        #expect(fake.poll.polls.count == settled, "no poll after the stream left the configuration")
        await fake.stop()
    }
}
