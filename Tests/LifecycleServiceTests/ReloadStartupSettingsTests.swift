import Foundation
import LifecycleCore
import Testing

/// SIGHUP with settings that are bound when `serve` starts (README, "`serve` and SIGHUP"): the store, the
/// listeners' addresses, the JWKS source, the pseudonym key and the master key file keep their running values
/// and `reload.restart_required` names them, while the rest of the same file is put in force.
@Suite("SIGHUP keeps the settings bound at start")
struct ReloadStartupSettingsTests {
    @Test(
        "a reload changing storage, both listeners and the JWKS source keeps them (reload.restart_required) and applies the app it adds"
    )
    func restartRequiredSettingsAreKept() async throws {
        let fixture = try await ServeFixture()
        let process = try await fixture.start()
        let otherPublic = try await WebhookReceiver.unusedPort()
        let otherAdmin = try await WebhookReceiver.unusedPort()
        try fixture.updateConfiguration { configuration in
            configuration["storage"] = ["url": "sqlite:elsewhere.sqlite"]
            configuration["public"] = ["host": "127.0.0.1", "port": .integer(Int64(otherPublic))]
            configuration["admin"] = [
                "host": "127.0.0.1", "port": .integer(Int64(otherAdmin)), "tokenFile": "secrets/admin-token",
            ]
            configuration["apple"] = ["jwks": "missing-jwks.json"]
            configuration["apps"] = [ServeFixture.app(), ServeFixture.app(id: "blog", clientID: "com.example.blog")]
        }
        try await fixture.reload(process)

        let lines = fixture.logEvents("reload.restart_required")
        #expect(lines.count == 1, "\(fixture.log)")
        let kept = Set(lines.first?["kept"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        #expect(kept == ["storage", "public", "admin.enabled/host/port", "apple.jwks"], "\(kept)")
        // The app the same file adds is in force, on the listener serve started with, into the store it opened.
        let blog = fixture.notification(type: "consent-revoked", subject: "000001.a.0001", audience: "com.example.blog")
        #expect(try await fixture.post(blog).status == 200)
        #expect(
            try await fixture.metric(
                "lifecycle_notifications_total", ["type": "consent-revoked", "outcome": "accepted"])
                == 1, "the admin listener still answers")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("elsewhere.sqlite")))
        let account = try await fixture.admin("GET", "/v1/apps/blog/accounts/000001.a.0001")
        #expect(account.status == 200, "stored in the store serve opened: \(account)")
        #expect(await fixture.stop() == [0])
    }
}
