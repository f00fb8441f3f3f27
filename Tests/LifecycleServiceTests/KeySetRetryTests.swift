import Foundation
import LifecycleCore
import Testing

/// A `serve` whose first fetch of Apple's key set failed (at boot the network may not be up yet, or Apple's
/// endpoint briefly down) is not ready, and a load balancer sends no traffic to an instance that is not ready:
/// so it must fetch again on its own, not on the next token, and become ready once the keys can be had.
@Suite("Key sets that failed to load are fetched again without traffic")
struct KeySetRetryTests {
    @Test("serve started without its key set becomes ready once the set can be read, with no request in between")
    func readyWithoutTraffic() async throws {
        let fixture = try await ServeFixture(extra: ["apple": ["jwks": "late/jwks.json"]])
        let serve = try await fixture.start(waitingUntilReady: false)
        defer { serve.kill(signal: SIGKILL) }
        // Up but not ready: the set is missing, readiness says so.
        let answered = await eventually(timeout: .seconds(60)) {
            (try? await fixture.publicClient(timeout: .seconds(2)).get("/readyz"))?.status == 503
        }
        #expect(answered, "\(fixture.log.suffix(2000))")
        #expect(!fixture.logEvents("keys.load_failed").isEmpty, "\(fixture.log.suffix(2000))")

        try FileManager.default.createDirectory(
            atPath: fixture.directory.file("late"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixture.directory.file("jwks.json"), toPath: fixture.directory.file("late/jwks.json"))
        // The first retry comes 5 s after the failed start (then 10, 20…): ready well inside a minute, and
        // nothing was sent to the public listener but `/readyz`.
        let ready = await eventually(timeout: .seconds(60)) {
            (try? await fixture.publicClient(timeout: .seconds(2)).get("/readyz"))?.status == 200
        }
        #expect(ready, "\(fixture.log.suffix(2000))")
        // The line follows the keys by up to the loop's 50 ms poll.
        let logged = await eventually(timeout: .seconds(10)) { fixture.logEvents("keys.loaded").count == 1 }
        #expect(logged, "\(fixture.log.suffix(2000))")
        let accepted = try await fixture.post(fixture.notification(type: "email-disabled", subject: "000111.retry.1"))
        #expect(accepted.status == 200, "\(accepted)")
    }

    @Test(
        "a notification while Apple's key set cannot be loaded is answered 503, stored nowhere, and accepted when sent again"
    )
    func unavailableUntilKeysLoad() async throws {
        let fixture = try await ServeFixture(extra: ["apple": ["jwks": "late/jwks.json"]])
        let serve = try await fixture.start(waitingUntilReady: false)
        defer { serve.kill(signal: SIGKILL) }
        let body = fixture.notification(type: "consent-revoked", subject: "000111.unavailable.1")
        let refused = await eventually(timeout: .seconds(60)) { (try? await fixture.post(body))?.status == 503 }
        #expect(refused, "\(fixture.log.suffix(2000))")
        let answer = try await fixture.post(body)
        #expect(answer.json?["err"] == "temporarily_unavailable", "\(answer)")
        #expect(!fixture.logEvents("notification.keys_unavailable").isEmpty, "\(fixture.log.suffix(2000))")
        let account = try await fixture.admin("GET", "/v1/apps/shop/accounts/000111.unavailable.1")
        #expect(account.status == 404, "nothing was stored for it: \(account)")

        try FileManager.default.createDirectory(
            atPath: fixture.directory.file("late"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixture.directory.file("jwks.json"), toPath: fixture.directory.file("late/jwks.json"))
        // Apple sends the same body again; once the set has loaded it is accepted, once.
        let accepted = await eventually(timeout: .seconds(60)) {
            (try? await fixture.post(body))?.json?["status"] == "accepted"
        }
        #expect(accepted, "\(fixture.log.suffix(2000))")
        #expect(try await fixture.post(body).json?["status"] == "duplicate")
        let stored = try await fixture.admin("GET", "/v1/apps/shop/accounts/000111.unavailable.1")
        #expect(stored.json?["state"] == "consent-revoked", "\(stored)")
    }

    /// A heartbeat says "this instance was receiving" (the reconcile's `notification-gap` reads them so). Without
    /// Apple's key set every notification is answered 503, so no heartbeat is written until the set loads: a
    /// key outage that outlasts Apple's retries shows as the gap it is.
    @Test("no heartbeat while Apple's key set cannot be loaded; heartbeats once it loads")
    func noHeartbeatWithoutKeys() async throws {
        let fixture = try await ServeFixture(
            extra: ["apple": ["jwks": "late/jwks.json"], "reconcile": ["heartbeatSeconds": 1]])
        let serve = try await fixture.start(waitingUntilReady: false)
        defer { serve.kill(signal: SIGKILL) }
        let store = fixture.directory.file("lifecycle.sqlite")
        let skipped = await eventually(timeout: .seconds(60)) { !fixture.logEvents("heartbeat.skipped").isEmpty }
        #expect(skipped, "\(fixture.log.suffix(2000))")
        // Two more ticks without keys: still no heartbeat, and one line for the change, not one per tick.
        try await Task.sleep(for: .milliseconds(2_500))
        #expect(try StoreFile.count("SELECT count(*) FROM heartbeats", in: store) == 0)
        #expect(fixture.logEvents("heartbeat.skipped").count == 1, "\(fixture.log.suffix(2000))")

        try FileManager.default.createDirectory(
            atPath: fixture.directory.file("late"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixture.directory.file("jwks.json"), toPath: fixture.directory.file("late/jwks.json"))
        let beating = await eventually(timeout: .seconds(60)) {
            ((try? StoreFile.count("SELECT count(*) FROM heartbeats", in: store)) ?? 0) >= 2
        }
        #expect(beating, "\(fixture.log.suffix(2000))")
        #expect(fixture.logEvents("heartbeat.resumed").count == 1, "\(fixture.log.suffix(2000))")
        #expect(await fixture.stop() == [0])
    }

    /// The same for another provider's key set: `/readyz` does not wait for it, but its SETs are refused (503)
    /// until it loads, and nothing but the retry would load it while no transmitter pushes.
    @Test("a provider's key set that failed to load is loaded by serve once it can be read, with no request")
    func providerSetWithoutTraffic() async throws {
        var app = ServeFixture.app().objectValue ?? [:]
        app["signals"] = [
            [
                "provider": "google-risc", "jwks": "late/google.json",
                "audience": [.string(SecurityEventEndpointTests.googleClientID)],
            ]
        ]
        let fixture = try await ServeFixture(apps: [.object(app)])
        let serve = try await fixture.start()
        defer { serve.kill(signal: SIGKILL) }
        @Sendable func googleKeys() async -> JSONValue? {
            guard let ready = try? await fixture.publicClient(timeout: .seconds(2)).get("/readyz") else { return nil }
            return JSONValue.parseIfValid(ready.body)?["signalKeys"]?["shop/google"]
        }
        #expect(await googleKeys() == "none loaded", "\(fixture.log.suffix(2000))")
        try FileManager.default.createDirectory(
            atPath: fixture.directory.file("late"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixture.directory.file("jwks.json"), toPath: fixture.directory.file("late/google.json"))
        let loaded = await eventually(timeout: .seconds(60)) { await googleKeys()?.integerValue != nil }
        #expect(loaded, "\(fixture.log.suffix(2000))")
        let logged = await eventually(timeout: .seconds(10)) { fixture.logEvents("signal.keys_loaded").count == 1 }
        #expect(logged, "\(fixture.log.suffix(2000))")
        #expect(fixture.logEvents("signal.keys_loaded").first?["provider"] == "google")
    }
}
