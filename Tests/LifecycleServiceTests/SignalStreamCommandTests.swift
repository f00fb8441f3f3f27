import Foundation
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// `lifecycle signals stream create|show|update|verify` against the fake transmitter's stream management on
/// loopback TLS (its CA made for the test, trusted through `SSL_CERT_FILE`), with the real `lifecycle serve`
/// on a TLS public listener receiving the verification events the fake pushes. Observed from outside: the
/// command's output and exit status, what the fake was sent, `/metrics`.
@Suite("Shared Signals stream management commands", .serialized)
struct SignalStreamCommandTests {
    static let audience = SecurityEventEndpointTests.audience
    static let clientID = SecurityEventEndpointTests.googleClientID
    static let pushToken = "transmitter-push-token-0123456789"
    static let managementToken = FakeStreamService.managementToken

    /// serve with app `shop`: `idp` (ssf, push token, management token, endpoint URL) and `google`
    /// (google-risc, the fake's RISC API and discovery, a service account key).
    static func start(_ fake: FakeTransmitter) async throws -> ServeFixture {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app()], tls: true, environment: ["SSL_CERT_FILE": fake.caFile])
        let base = "https://127.0.0.1:\(fixture.publicPort)"
        try fixture.updateConfiguration { configuration in
            guard case .array(var apps)? = configuration["apps"], case .object(var app) = apps[0] else { return }
            app["signals"] = [
                [
                    "provider": "ssf", "id": "idp", "issuer": .string(fake.issuer),
                    "jwks": .string(fake.baseURL + "/jwks"), "audience": [.string(audience)],
                    "authorization": ["secretFile": "secrets/idp-push-token"],
                    "stream": [
                        "tokenFile": "secrets/idp-management-token", "endpointURL": .string(base + "/signals/shop/idp"),
                    ],
                ],
                [
                    "provider": "google-risc", "jwks": .string(fake.baseURL + "/jwks"), "audience": [.string(clientID)],
                    "stream": [
                        "discovery": .string(fake.baseURL + "/.well-known/risc-configuration"),
                        "googleAPI": .string(fake.baseURL), "serviceAccountFile": "secrets/google-sa.json",
                        "endpointURL": .string(base + "/signals/shop/google"),
                    ],
                ],
            ]
            apps[0] = .object(app)
            configuration["apps"] = .array(apps)
        }
        try fixture.writeSecret(pushToken + "\n", to: "secrets/idp-push-token")
        try fixture.writeSecret(managementToken + "\n", to: "secrets/idp-management-token")
        try fixture.writeSecret(try FakeStreamService.serviceAccountFile(), to: "secrets/google-sa.json")
        fake.streams.configure {
            $0.audience = audience
            $0.googleClientID = clientID
            $0.receiverCA = fixture.directory.file("ca.pem")
        }
        do {
            _ = try await fixture.start()
        } catch {
            Issue.record("serve did not start: \(fixture.log)")
            throw error
        }
        return fixture
    }

    static func stream(_ fixture: ServeFixture, _ words: [String]) async throws -> LifecycleProcess.Finished {
        try await fixture.lifecycle(["signals", "stream"] + words)
    }

    @Test("create registers the push endpoint with its token and events; show and update read and change it")
    func ssfLifecycle() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let purged = SecurityEventEndpointTests.risc + "account-purged"
        let created = try await Self.stream(fixture, ["create", "--app", "shop", "--provider", "idp", "--json"])
        #expect(created.status == 0, "\(created)")
        let streams = fake.streams.streams
        #expect(streams.count == 1)
        let delivery = streams.first?["delivery"]
        #expect(delivery?["method"] == "urn:ietf:rfc:8935")
        #expect(delivery?["endpoint_url"]?.stringValue == "https://127.0.0.1:\(fixture.publicPort)/signals/shop/idp")
        #expect(delivery?["authorization_header"]?.stringValue == "Bearer " + Self.pushToken)
        let requested = streams.first?["events_requested"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(requested.contains(purged), "every mapped type is requested by default: \(requested)")
        #expect(!requested.contains(FakeStreamService.ssfVerification))
        let id = try #require(JSONValue.parseIfValid(Array(created.output.utf8))?["stream_id"]?.stringValue)
        #expect(streams.first?["stream_id"]?.stringValue == id)
        #expect(!created.output.contains(Self.pushToken), "the push token is never printed")

        let shown = try await Self.stream(fixture, ["show", "--app", "shop", "--provider", "idp", "--json"])
        #expect(shown.status == 0, "\(shown)")
        let document = JSONValue.parseIfValid(Array(shown.output.utf8))
        #expect(document?["stream"]?["stream_id"]?.stringValue == id, "the only stream is found without --stream-id")
        #expect(document?["discovery"]?["issuer"]?.stringValue == fake.issuer)
        #expect(document?["received"]?["verification"] == .null)

        let updated = try await Self.stream(
            fixture, ["update", "--app", "shop", "--provider", "idp", "--event", purged, "--stream-id", id])
        #expect(updated.status == 0, "\(updated)")
        #expect(updated.output.contains("events_requested: \(purged)"), "\(updated)")
        #expect(fake.streams.streams.first?["events_requested"] == .array([.string(purged)]))
        #expect(fake.streams.calls.contains("PATCH /ssf/stream 200"), "\(fake.streams.calls)")
        await fake.stop()
    }

    @Test("verify sends a random state; the transmitter's verification SET reaches serve and the command sees it")
    func ssfVerificationRoundTrip() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        #expect(try await Self.stream(fixture, ["create", "--app", "shop", "--provider", "idp"]).status == 0)
        let verified = try await Self.stream(
            fixture, ["verify", "--app", "shop", "--provider", "idp", "--wait", "30", "--json"])
        #expect(verified.status == 0, "\(verified)")
        let document = JSONValue.parseIfValid(Array(verified.output.utf8))
        let state = try #require(document?["state"]?.stringValue)
        #expect(state.count >= 22, "16 random bytes")
        #expect(document?["received_at"]?.stringValue != nil)
        #expect(await eventually(timeout: .seconds(5)) { fake.streams.pushes == [202] }, "\(fake.streams.pushes)")
        #expect(
            try await fixture.metric(
                "lifecycle_security_events_total", ["provider": "idp", "type": "verification", "outcome": "accepted"])
                == 1)
        // A second verify has a new state: the first one's event does not count for it.
        let again = try await Self.stream(fixture, ["verify", "--app", "shop", "--provider", "idp", "--json"])
        #expect(again.status == 0, "\(again)")
        let second = JSONValue.parseIfValid(Array(again.output.utf8))?["state"]?.stringValue
        #expect(second != nil && second != state)

        // The transmitter's stream-updated event is recorded and show reports it, with the last verification.
        let updated = fake.set(
            event: "https://schemas.openid.net/secevent/ssf/event-type/stream-updated",
            body: ["status": "paused", "reason": "maintenance"], subject: ["format": "opaque", "id": "s"],
            audience: .string(Self.audience))
        let pushed = try await fake.push(
            updated, to: fixture.publicClient(), path: "/signals/shop/idp", token: Self.pushToken)
        #expect(pushed.status == 202, "\(pushed)")
        let shown = try await Self.stream(fixture, ["show", "--app", "shop", "--provider", "idp"])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.output.contains("last stream-updated received: "), "\(shown)")
        #expect(shown.output.contains("(status paused)"), "\(shown)")
        #expect(shown.output.contains("(state \(second ?? "-"))"), "\(shown)")
        await fake.stop()
    }

    @Test("a verification that never arrives exits 1 after --wait, naming the endpoint")
    func verificationNotReceived() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        // The stream points at a path serve does not answer: the pushed verification is refused (404).
        let created = try await Self.stream(
            fixture,
            [
                "create", "--app", "shop", "--provider", "idp", "--endpoint-url",
                "https://127.0.0.1:\(fixture.publicPort)/signals/elsewhere",
            ])
        #expect(created.status == 0, "\(created)")
        let verified = try await Self.stream(fixture, ["verify", "--app", "shop", "--provider", "idp", "--wait", "2"])
        #expect(verified.status == 1, "\(verified)")
        #expect(verified.errorLines.count == 1, "\(verified)")
        #expect(verified.errors.contains("not received within 2 s"), "\(verified)")
        #expect(await eventually(timeout: .seconds(5)) { fake.streams.pushes == [404] }, "\(fake.streams.pushes)")
        await fake.stop()
    }

    @Test("google-risc: stream:update and stream:verify authorised by the service account's JWT; the round trip")
    func googleRoundTrip() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        let created = try await Self.stream(fixture, ["create", "--app", "shop", "--provider", "google"])
        #expect(created.status == 0, "\(created)")
        let google = fake.streams.google
        #expect(google?["delivery"]?["delivery_method"]?.stringValue == FakeStreamService.googlePush)
        #expect(
            google?["delivery"]?["url"]?.stringValue == "https://127.0.0.1:\(fixture.publicPort)/signals/shop/google")
        #expect(google?["events_requested"]?.arrayValue?.contains(.string(FakeStreamService.riscVerification)) == true)
        let shown = try await Self.stream(fixture, ["show", "--app", "shop", "--provider", "google", "--json"])
        #expect(shown.status == 0, "\(shown)")
        #expect(
            JSONValue.parseIfValid(Array(shown.output.utf8))?["discovery"]?["issuer"] == "https://accounts.google.com/")
        let verified = try await Self.stream(
            fixture, ["verify", "--app", "shop", "--provider", "google", "--wait", "30"])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("verification received at "), "\(verified)")
        #expect(await eventually(timeout: .seconds(5)) { fake.streams.pushes == [202] }, "\(fake.streams.pushes)")
        #expect(fake.streams.calls.contains("POST /v1beta/stream:verify 200"), "\(fake.streams.calls)")
        await fake.stop()
    }

    @Test("refusals are one line naming the cause: a wrong management token, a foreign issuer, a bad option")
    func refusals() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Self.start(fake)
        try fixture.writeSecret("not-the-management-token\n", to: "secrets/idp-management-token")
        let refused = try await Self.stream(fixture, ["create", "--app", "shop", "--provider", "idp"])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.errorLines.count == 1, "\(refused)")
        #expect(refused.errors.contains("answered 401 (authentication_failed)"), "\(refused)")
        #expect(refused.errors.contains("stream.tokenFile"), "\(refused)")
        #expect(!refused.errors.contains("not-the-management-token"), "the token is never printed")
        #expect(fake.streams.streams.isEmpty)

        try FileManager.default.removeItem(atPath: fixture.directory.file("secrets/google-sa.json"))
        try fixture.writeSecret(#"{"client_email": "x@example.com"}"#, to: "secrets/google-sa.json")
        let badKey = try await Self.stream(fixture, ["show", "--app", "shop", "--provider", "google"])
        #expect(badKey.status == 2)
        #expect(badKey.errors.contains("google-sa.json: private_key_id is missing"), "\(badKey)")

        try fixture.updateConfiguration { configuration in
            guard case .array(var apps)? = configuration["apps"], case .object(var app) = apps[0],
                case .array(var signals)? = app["signals"], case .object(var first) = signals[0]
            else { return }
            first["issuer"] = "https://other-issuer.example/"
            if case .object(var stream)? = first["stream"] {
                stream["discovery"] = .string(fake.baseURL + "/.well-known/ssf-configuration")
                first["stream"] = .object(stream)
            }
            signals[0] = .object(first)
            app["signals"] = .array(signals)
            apps[0] = .object(app)
            configuration["apps"] = .array(apps)
        }
        let foreign = try await Self.stream(fixture, ["show", "--app", "shop", "--provider", "idp"])
        #expect(foreign.status == 2, "\(foreign)")
        #expect(foreign.errors.contains("is not the configured issuer https://other-issuer.example/"), "\(foreign)")

        let unknown = try await Self.stream(fixture, ["show", "--app", "shop", "--provider", "okta"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("app shop has no signals provider okta; its providers are idp, google"))
        let misplaced = try await Self.stream(fixture, ["show", "--app", "shop", "--provider", "idp", "--wait", "3"])
        #expect(misplaced.status == 2)
        #expect(misplaced.errors.contains("--wait applies to verify only"))
        let help = try await fixture.lifecycle(["signals", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("lifecycle signals stream create|show|update|verify --app ID --provider ID"))
        await fake.stop()
    }
}
