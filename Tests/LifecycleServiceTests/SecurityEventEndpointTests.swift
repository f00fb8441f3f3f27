import Foundation
import HTTPServer
import LifecycleCore
import Synchronization
import TestSupport
import Testing

/// The real `lifecycle serve` receiving Security Event Tokens pushed (RFC 8935) by a fake Shared Signals
/// transmitter on loopback, whose key set it fetches over TLS from a CA made for the test (`SSL_CERT_FILE`).
/// Everything is observed from outside: HTTP answers, the admin API, `/metrics`.
@Suite("Shared Signals push endpoint of lifecycle serve", .serialized)
struct SecurityEventEndpointTests {
    static let path = "/signals/shop/idp"
    static let googlePath = "/signals/shop/google"
    static let strictPath = "/signals/shop/strict"
    static let audience = "https://receiver.example.com/"
    static let googleClientID = "1234-abc.apps.googleusercontent.com"
    static let bearer = "transmitter-push-token-0123456789"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let oauth = "https://schemas.openid.net/secevent/oauth/event-type/"
    static let googleIssuer = "https://accounts.google.com/"
    static let webhookSecret = "signals-webhook-secret-0123456789"

    /// A serve process whose app `shop` has Apple (the fixture's client id, an erasure target) and three
    /// providers of the fake: `idp` (ssf, bearer token), `google` (google-risc, Google's issuer and client id)
    /// and `strict` (ssf, only account-purged requested).
    static func start(
        _ fake: FakeTransmitter, webhook: String? = nil, environment: [String: String] = [:]
    ) async throws -> ServeFixture {
        try await serve(fake, webhook: webhook, environment: environment).fixture
    }

    /// ``start(_:)`` with the serve process, for the tests that signal it.
    static func serve(
        _ fake: FakeTransmitter, webhook: String? = nil, environment: [String: String] = [:]
    ) async throws -> (fixture: ServeFixture, process: LifecycleProcess) {
        // The app's own table keeps each provider's identifier in one column: `:provider_sub` is Apple's `sub`
        // for an Apple account and the transmitter's `sub` for one of its accounts.
        let target: JSONObject = [
            "app-db": [
                "type": "sqlite", "path": "shop.sqlite",
                "statements": ["DELETE FROM users WHERE apple_sub = :provider_sub"],
                "verify": "SELECT count(*) FROM users WHERE apple_sub = :provider_sub",
            ]
        ]
        var app = ServeFixture.app(webhook: webhook, erasureTargets: target).objectValue ?? [:]
        app["signals"] = [
            [
                "provider": "ssf", "id": "idp", "issuer": .string(fake.issuer), "jwks": .string(fake.baseURL + "/jwks"),
                "audience": [.string(audience)], "authorization": ["secretFile": "secrets/idp-push-token"],
            ],
            [
                "provider": "google-risc", "jwks": .string(fake.baseURL + "/jwks"),
                "audience": [.string(googleClientID)],
            ],
            [
                "provider": "ssf", "id": "strict", "issuer": .string(fake.issuer),
                "jwks": .string(fake.baseURL + "/jwks"), "audience": [.string(audience)],
                "events": [.string(risc + "account-purged")],
            ],
        ]
        let fixture = try await ServeFixture(
            apps: [.object(app)], extra: ["erasure": ["pollMilliseconds": 100]],
            environment: environment.merging(["SSL_CERT_FILE": fake.caFile]) { _, fake in fake })
        try fixture.writeSecret(bearer + "\n", to: "secrets/idp-push-token")
        try fixture.writeSecret(webhookSecret, to: "secrets/shop-webhook")
        try fixture.createAppDatabase("shop.sqlite", subjects: [TestFixtures.subject, "user-purged"])
        do {
            return (fixture, try await fixture.start())
        } catch {
            Issue.record("serve did not start: \(fixture.log)")
            throw error
        }
    }

    /// The store key of an `iss_sub` account of `provider` (README, "Accounts of other providers").
    static func key(_ provider: String, _ sub: String, issuer: String) -> String {
        ProviderSubject(provider: provider, format: "iss_sub", values: [issuer, sub]).accountKey
    }

    static func account(_ fixture: ServeFixture, _ key: String) async throws -> (status: Int, json: JSONValue?) {
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key
        return try await fixture.admin("GET", "/v1/apps/shop/accounts/\(encoded)")
    }

    @Test(
        "each mapped event type moves its account as the README's table says, answered 202 after the commit",
        arguments: [
            (risc + "account-purged", "deleted", "account-deleted"),
            (risc + "account-disabled", "consent-revoked", "access-suspended"),
            (risc + "account-enabled", "linked", "linked"),
            (risc + "account-credential-change-required", "linked", "sessions-revoked"),
            (risc + "sessions-revoked", "linked", "sessions-revoked"),
            (caep + "session-revoked", "linked", "sessions-revoked"),
            (caep + "credential-change", "linked", "sessions-revoked"),
            (oauth + "token-revoked", "consent-revoked", "credentials-invalid"),
            (oauth + "tokens-revoked", "consent-revoked", "credentials-invalid"),
        ])
    func mappedTypes(event: String, state: String, input: String) async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let sub = "user-" + String(event.split(separator: "/").last ?? "")
        let set = fake.set(
            event: event, body: event.hasSuffix("account-disabled") ? ["reason": "hijacking"] : [:],
            subject: FakeTransmitter.issSub(sub, issuer: fake.issuer), audience: .string(Self.audience))
        let pushed = try await fake.push(set, to: fixture.publicClient(), path: Self.path, token: Self.bearer)
        #expect(pushed.status == 202, "\(pushed)")
        let account = try await Self.account(fixture, Self.key("idp", sub, issuer: fake.issuer))
        #expect(account.status == 200, "\(account)")
        #expect(account.json?["state"]?.stringValue == state)
        #expect(account.json?["provider"] == "idp")
        #expect(account.json?["history"]?.arrayValue?.first?["input"]?.stringValue == input)
        #expect(account.json?["history"]?.arrayValue?.first?["disposition"] == "applied")
        let type = String(event.split(separator: "/").last ?? "")
        #expect(
            try await fixture.metric(
                "lifecycle_security_events_total", ["provider": "idp", "type": type, "outcome": "accepted"]) == 1)
        await fake.stop()
    }

    @Test("an event's reason is logged only when it is a value RISC defines: free text can name a person")
    func reasonInTheLog() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let freeText = "Disabled after Jane Q. Example (jane.example@mail.test) called support"
        for (sub, reason) in [("user-hijacked", "hijacking"), ("user-told", freeText)] {
            let set = fake.set(
                event: Self.risc + "account-disabled", body: ["reason": .string(reason)],
                subject: FakeTransmitter.issSub(sub, issuer: fake.issuer), audience: .string(Self.audience))
            let pushed = try await fake.push(set, to: fixture.publicClient(), path: Self.path, token: Self.bearer)
            #expect(pushed.status == 202, "\(pushed)")
        }
        let reasons = fixture.logEvents("signal.accepted").compactMap { $0["event_reason"]?.stringValue }
        #expect(reasons == ["hijacking", "unregistered"], "\(reasons)")
        #expect(!fixture.log.contains("jane.example"), "the free text reached the log")
        #expect(!fixture.log.contains("Jane Q."), "the free text reached the log")
        await fake.stop()
    }

    @Test(
        "LIFECYCLE_SIGNALS_TOKEN_<APP>_<ID> alone (no authorization.secretFile) is the push bearer token: a push without it is refused"
    )
    func bearerTokenFromTheEnvironment() async throws {
        let fake = try FakeTransmitter()
        let token = "strict-push-token-from-env-0123456789"
        let fixture = try await Self.start(fake, environment: ["LIFECYCLE_SIGNALS_TOKEN_SHOP_STRICT": token])
        let client = fixture.publicClient()
        let set = {
            fake.set(
                event: Self.risc + "account-purged", subject: FakeTransmitter.issSub("user-env", issuer: fake.issuer),
                audience: .string(Self.audience))
        }
        let none = try await fake.push(set(), to: client, path: Self.strictPath)
        #expect(none.status == 400, "\(none)")
        #expect(none.json?["err"]?.stringValue == "authentication_failed", "\(none)")
        let wrong = try await fake.push(set(), to: client, path: Self.strictPath, token: "not-the-token")
        #expect(wrong.json?["err"]?.stringValue == "authentication_failed", "\(wrong)")
        #expect(try await fake.push(set(), to: client, path: Self.strictPath, token: token).status == 202)
        #expect(try await Self.account(fixture, Self.key("strict", "user-env", issuer: fake.issuer)).status == 200)
        await fake.stop()
    }

    @Test("an ES256 SET signed by the transmitter's P-256 key from its JWKS is accepted")
    func es256() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let set = try fake.es256Set(
            event: Self.risc + "account-purged", subject: FakeTransmitter.issSub("user-ec", issuer: fake.issuer),
            audience: .string(Self.audience))
        let pushed = try await fake.push(set, to: fixture.publicClient(), path: Self.path, token: Self.bearer)
        #expect(pushed.status == 202, "\(pushed)")
        let account = try await Self.account(fixture, Self.key("idp", "user-ec", issuer: fake.issuer))
        #expect(account.json?["state"] == "deleted", "\(account)")
        await fake.stop()
    }

    @Test("SIGHUP puts the providers in force: a removed provider's path is 404, a moved one answers at its new path")
    func reload() async throws {
        let fake = try FakeTransmitter()
        let (fixture, process) = try await Self.serve(fake)
        try fixture.updateConfiguration { configuration in
            guard case .array(var apps)? = configuration["apps"], case .object(var app) = apps[0],
                case .array(var signals)? = app["signals"], case .object(var first) = signals[0]
            else { return }
            first["path"] = "/signals/moved"
            signals = [.object(first)]
            app["signals"] = .array(signals)
            apps[0] = .object(app)
            configuration["apps"] = .array(apps)
        }
        try await fixture.reload(process)
        let set = fake.set(
            event: Self.caep + "session-revoked", subject: FakeTransmitter.issSub("user-moved", issuer: fake.issuer),
            audience: .string(Self.audience))
        let client = fixture.publicClient()
        #expect(try await fake.push(set, to: client, path: Self.path, token: Self.bearer).status == 404)
        #expect(try await fake.push(set, to: client, path: Self.googlePath).status == 404)
        #expect(try await fake.push(set, to: client, path: "/signals/moved", token: Self.bearer).status == 202)
        await fake.stop()
    }

    @Test("a verification event and an unknown type are stored, answered 202 and counted; no account appears")
    func recordedTypes() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let client = fixture.publicClient()
        let verification = fake.set(
            event: "https://schemas.openid.net/secevent/ssf/event-type/verification", body: ["state": "c3RhdGUtMQ"],
            subject: ["format": "opaque", "id": "stream-1"], audience: .string(Self.audience))
        #expect(try await fake.push(verification, to: client, path: Self.path, token: Self.bearer).status == 202)
        let unknown = fake.set(
            event: "https://example.com/event-type/not-yet-defined",
            subject: FakeTransmitter.issSub("user-unknown", issuer: fake.issuer), audience: .string(Self.audience))
        #expect(try await fake.push(unknown, to: client, path: Self.path, token: Self.bearer).status == 202)
        #expect(
            try await fixture.metric(
                "lifecycle_security_events_total", ["provider": "idp", "type": "unknown", "outcome": "accepted"]) == 1)
        #expect(
            try await fixture.metric(
                "lifecycle_security_events_total", ["provider": "idp", "type": "verification", "outcome": "accepted"])
                == 1)
        #expect(try await Self.account(fixture, Self.key("idp", "user-unknown", issuer: fake.issuer)).status == 404)
        await fake.stop()
    }

    @Test("every RFC 8935 error for its bad input, as 400 {err, description}; the process lives on")
    func errors() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let client = fixture.publicClient()
        let subject = FakeTransmitter.issSub("user-errors", issuer: fake.issuer)
        let purged = Self.risc + "account-purged"
        let good = { (overrides: [String: JSONValue?]) in
            fake.set(event: purged, subject: subject, audience: .string(Self.audience), overrides: overrides)
        }
        let cases: [(String, [UInt8], String?, String, String)] = [
            ("garbage", Array("not a token".utf8), Self.bearer, Self.path, "invalid_request"),
            (
                "no typ", fake.set(event: purged, subject: subject, audience: .string(Self.audience), typ: nil),
                Self.bearer, Self.path, "invalid_request"
            ),
            (
                "alg none",
                fake.set(
                    event: purged, subject: subject, audience: .string(Self.audience), header: ["alg": "none"],
                    signing: .none), Self.bearer, Self.path, "invalid_key"
            ),
            (
                "unknown kid",
                fake.set(
                    event: purged, subject: subject, audience: .string(Self.audience), header: ["kid": "rotated-away"]),
                Self.bearer, Self.path, "invalid_key"
            ),
            ("other issuer", good(["iss": "https://evil.example/"]), Self.bearer, Self.path, "invalid_issuer"),
            ("other audience", good(["aud": "https://elsewhere.example/"]), Self.bearer, Self.path, "invalid_audience"),
            ("no bearer", good([:]), nil, Self.path, "authentication_failed"),
            ("wrong bearer", good([:]), "not-the-token", Self.path, "authentication_failed"),
            (
                "bad signature",
                fake.set(
                    event: purged, subject: subject, audience: .string(Self.audience),
                    signing: .signature(Array(repeating: 7, count: 256))), Self.bearer, Self.path,
                "authentication_failed"
            ),
            (
                "event not requested",
                fake.set(
                    event: Self.risc + "account-disabled", subject: subject, audience: .string(Self.audience)),
                nil, Self.strictPath, "access_denied"
            ),
        ]
        for (name, set, token, path, err) in cases {
            let answer = try await fake.push(set, to: client, path: path, token: token)
            #expect(answer.status == 400, "\(name): \(answer)")
            #expect(answer.json?["err"]?.stringValue == err, "\(name): \(answer)")
            #expect(answer.json?["description"]?.stringValue?.isEmpty == false, "\(name)")
        }
        let verification = fake.set(
            event: "https://schemas.openid.net/secevent/ssf/event-type/verification", body: ["state": "c3RyaWN0"],
            subject: ["format": "opaque", "id": "stream-strict"], audience: .string(Self.audience))
        #expect(
            try await fake.push(verification, to: client, path: Self.strictPath).status == 202,
            "a verification passes whatever events lists")
        let wrongType = try await fake.push(
            good([:]), to: client, path: Self.path, token: Self.bearer, contentType: "application/json")
        #expect(wrongType.status == 400)
        #expect(wrongType.json?["err"] == "invalid_request")
        #expect(try await fixture.publicClient().get("/healthz").status == 200)
        #expect(try await Self.account(fixture, Self.key("idp", "user-errors", issuer: fake.issuer)).status == 404)
        await fake.stop()
    }

    @Test("the same SET twice is 202 both times and applies once")
    func duplicates() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let set = fake.set(
            event: Self.caep + "session-revoked", subject: FakeTransmitter.issSub("user-dup", issuer: fake.issuer),
            audience: .string(Self.audience))
        for _ in 0..<2 {
            #expect(
                try await fake.push(set, to: fixture.publicClient(), path: Self.path, token: Self.bearer).status == 202)
        }
        let account = try await Self.account(fixture, Self.key("idp", "user-dup", issuer: fake.issuer))
        #expect(account.json?["history"]?.arrayValue?.count == 1, "\(account)")
        #expect(
            try await fixture.metric(
                "lifecycle_security_events_total",
                ["provider": "idp", "type": "session-revoked", "outcome": "duplicate"]) == 1)
        await fake.stop()
    }

    @Test("a Google RISC SET (no typ, aud the client ID, expired exp, subject in the event) is accepted")
    func googleProfile() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let now = SystemClock().now()
        let set = fake.set(
            event: Self.risc + "account-disabled",
            body: [
                "subject": ["subject_type": "iss-sub", "iss": .string(Self.googleIssuer), "sub": "7375626A656374"],
                "reason": "hijacking",
            ], subject: nil, audience: .string(Self.googleClientID), typ: nil,
            overrides: ["iss": .string(Self.googleIssuer), "exp": .integer(now.secondsSinceEpoch - 600)])
        let pushed = try await fake.push(set, to: fixture.publicClient(), path: Self.googlePath)
        #expect(pushed.status == 202, "\(pushed)")
        let account = try await Self.account(
            fixture, Self.key("google", "7375626A656374", issuer: Self.googleIssuer))
        #expect(account.json?["state"] == "consent-revoked", "\(account)")
        #expect(account.json?["provider"] == "google")
        #expect(fake.requestCount("/jwks") >= 1)
        let ready = try await fixture.publicClient().get("/readyz")
        let keys = JSONValue.parseIfValid(ready.body)?["signalKeys"]
        #expect(keys?["shop/google"] == .integer(2), "the fake's RSA and P-256 keys: \(String(describing: keys))")
        await fake.stop()
    }

    @Test(
        "an account-purged schedules an erasure job next to an Apple deletion's, and both erase the app's rows")
    func purgeBesideAppleDeletion() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let apple = try await fixture.post(
            fixture.notification(type: "account-delete", subject: TestFixtures.subject))
        #expect(apple.status == 200, "\(apple)")
        let set = fake.set(
            event: Self.risc + "account-purged", subject: FakeTransmitter.issSub("user-purged", issuer: fake.issuer),
            audience: .string(Self.audience))
        #expect(try await fake.push(set, to: fixture.publicClient(), path: Self.path, token: Self.bearer).status == 202)
        let google = try await Self.account(fixture, Self.key("idp", "user-purged", issuer: fake.issuer))
        let appleAccount = try await Self.account(fixture, TestFixtures.subject)
        #expect(google.json?["erasureJobs"]?.arrayValue?.count == 1, "\(google)")
        #expect(appleAccount.json?["erasureJobs"]?.arrayValue?.count == 1, "\(appleAccount)")
        #expect(
            google.json?["erasureJobs"]?.arrayValue?.first?["trigger"]
                == appleAccount.json?["erasureJobs"]?.arrayValue?.first?["trigger"])
        #expect(appleAccount.json?["provider"] == "apple")
        let jobs = try await fixture.admin("GET", "/v1/jobs?app=shop")
        #expect(jobs.json?["jobs"]?.arrayValue?.count == 2, "\(jobs)")
        let erased = await eventually(timeout: .seconds(20)) {
            let left = [TestFixtures.subject, "user-purged"].map {
                (try? fixture.usersLeft($0, in: "shop.sqlite")) ?? -1
            }
            return left == [0, 0]
        }
        #expect(erased, "the app's rows of both accounts are erased")
        let completed = await eventually(timeout: .seconds(20)) {
            let jobs = try? await fixture.admin("GET", "/v1/jobs?app=shop&status=completed")
            return jobs?.json?["jobs"]?.arrayValue?.count == 2
        }
        #expect(completed, "both jobs complete")
        await fake.stop()
    }

    @Test("the app's webhook names the provider: account.sessions.terminate for a disabled account says idp")
    func webhookNamesProvider() async throws {
        let fake = try FakeTransmitter()
        let receiver = try WebhookReceiver()
        let fixture = try await Self.start(fake, webhook: receiver.url)
        let set = fake.set(
            event: Self.risc + "account-disabled", body: ["reason": "hijacking"],
            subject: FakeTransmitter.issSub("user-hook", issuer: fake.issuer), audience: .string(Self.audience))
        #expect(try await fake.push(set, to: fixture.publicClient(), path: Self.path, token: Self.bearer).status == 202)
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: TestFixtures.subject))
                .status == 200)
        let deliveries = await receiver.waitFor(2)
        let bySub = Dictionary(
            deliveries.compactMap { delivery in delivery.json?["data"]?["sub"]?.stringValue.map { ($0, delivery) } },
            uniquingKeysWith: { first, _ in first })
        let hook = try #require(bySub[Self.key("idp", "user-hook", issuer: fake.issuer)], "\(deliveries)")
        #expect(hook.json?["type"] == "account.sessions.terminate")
        #expect(hook.json?["data"]?["provider"] == "idp")
        #expect(hook.json?["data"]?["reason"] == "access-suspended")
        #expect(WebhookReceiver.isSigned(hook, secret: Self.webhookSecret))
        #expect(bySub[TestFixtures.subject]?.json?["data"]?["provider"] == "apple")
        await receiver.stop()
        await fake.stop()
    }

    @Test("identifier-recycled is stored, changes no account, and the next reconcile raises a critical finding")
    func recycledIdentifier() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let subject: JSONValue = ["format": "email", "email": "reused@example.com"]
        let set = fake.set(
            event: Self.risc + "identifier-recycled", subject: subject, audience: .string(Self.audience))
        #expect(try await fake.push(set, to: fixture.publicClient(), path: Self.path, token: Self.bearer).status == 202)
        let key = ProviderSubject(provider: "idp", format: "email", values: ["reused@example.com"]).accountKey
        #expect(try await Self.account(fixture, key).status == 404)
        let run = try await fixture.lifecycle(["reconcile", "--config", fixture.configurationFile])
        #expect(run.status == 1, "a critical finding makes reconcile exit 1: \(run)")
        let findings = try await fixture.admin("GET", "/v1/findings?app=shop")
        let recycled = findings.json?["findings"]?.arrayValue?.filter { $0["code"] == "identifier-recycled" } ?? []
        #expect(recycled.count == 1, "\(findings)")
        #expect(recycled.first?["severity"] == "critical")
        #expect(recycled.first?["subject"]?.stringValue == key)
        await fake.stop()
    }

    @Test("a kill -9 while SETs are pushed loses none answered 202; pushed again, each applies exactly once")
    func killNine() async throws {
        let fake = try FakeTransmitter()
        let (fixture, process) = try await Self.serve(fake)
        let count = 120
        let subjects = (0..<count).map { "user-crash-\($0)" }
        let sets = subjects.map { sub in
            fake.set(
                event: Self.risc + "account-disabled", subject: FakeTransmitter.issSub(sub, issuer: fake.issuer),
                audience: .string(Self.audience))
        }
        let acknowledged = Acknowledged()
        let pushers = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<6 {
                    group.addTask {
                        let client = fixture.publicClient(timeout: .seconds(5))
                        for index in stride(from: worker, to: count, by: 6) {
                            let answer = try? await fake.push(
                                sets[index], to: client, path: Self.path, token: Self.bearer)
                            if answer?.status == 202 { acknowledged.indices.withLock { _ = $0.insert(index) } }
                        }
                    }
                }
            }
        }
        let someAcknowledged = await eventually(timeout: .seconds(30)) {
            acknowledged.indices.withLock { $0.count } >= 30
        }
        process.kill(signal: SIGKILL)
        #expect(someAcknowledged)
        _ = await process.waitForExit()
        await pushers.value
        let answered = acknowledged.indices.withLock { $0 }
        #expect(answered.count < count, "the kill came before the last push")

        try await fixture.start()
        for index in answered.sorted() {
            let account = try await Self.account(fixture, Self.key("idp", subjects[index], issuer: fake.issuer))
            #expect(account.json?["state"] == "consent-revoked", "acknowledged SET \(index) was lost: \(account)")
        }
        let client = fixture.publicClient()
        for set in sets {
            #expect(try await fake.push(set, to: client, path: Self.path, token: Self.bearer).status == 202)
        }
        for sub in subjects {
            let account = try await Self.account(fixture, Self.key("idp", sub, issuer: fake.issuer))
            #expect(account.json?["history"]?.arrayValue?.count == 1, "\(sub): \(account)")
        }
        await fake.stop()
    }
}

/// The SETs a pusher saw answered 202, shared by the pushing tasks.
private final class Acknowledged: Sendable {
    let indices = Mutex<Set<Int>>([])
}
