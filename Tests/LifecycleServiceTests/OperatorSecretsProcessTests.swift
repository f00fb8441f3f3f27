import Foundation
import Glibc
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// The secrets an operator hands `serve` (README, "Admin API" and "Personal data at rest"), observed from
/// outside the real process: the admin token a SIGHUP swaps, and the master key file it creates.
@Suite("Operator secrets of lifecycle serve")
struct OperatorSecretsProcessTests {
    static let rotated = "rotated-admin-token-9876543210-abcdef"

    /// `GET /metrics` on the fixture's admin listener with `token`; the status.
    static func adminStatus(_ fixture: ServeFixture, token: String) async throws -> Int {
        let client = HTTPClient(host: "127.0.0.1", port: fixture.adminPort, timeout: .seconds(10))
        let response = try await client.send(
            HTTPClientRequest(method: "GET", target: "/metrics", headers: ["Authorization": "Bearer \(token)"]))
        return response.status
    }

    @Test("a new admin.tokenFile token takes over at SIGHUP: the old token is refused from then on")
    func adminTokenSwappedByReload() async throws {
        let fixture = try await ServeFixture()
        let serve = try await fixture.start()
        let old = ServeFixture.adminToken
        let new = "rotated-admin-token-9876543210-abcdef"
        #expect(try await Self.adminStatus(fixture, token: old) == 200)
        #expect(try await Self.adminStatus(fixture, token: new) == 401)

        try fixture.writeSecret(new, to: "secrets/admin-token")
        #expect(try await Self.adminStatus(fixture, token: old) == 200, "a changed file alone changes nothing")
        serve.kill(signal: SIGHUP)
        let swapped = await eventually(timeout: .seconds(10)) {
            (try? await Self.adminStatus(fixture, token: new)) == 200
        }
        #expect(swapped, "\(fixture.log.suffix(2000))")
        #expect(try await Self.adminStatus(fixture, token: old) == 401)
        // The token is put in force just before the line is written.
        let logged = await eventually(timeout: .seconds(5)) { fixture.logEvents("reload.configuration").count == 1 }
        #expect(logged, "\(fixture.log.suffix(2000))")
        #expect(!fixture.log.contains(new) && !fixture.log.contains(old), "a token reached the log")
    }

    @Test(
        "without admin.tokenFile or LIFECYCLE_ADMIN_TOKEN serve refuses to start (exit 2, one line); with the variable it serves it"
    )
    func adminListenerNeedsAToken() async throws {
        let fixture = try await ServeFixture()
        try fixture.updateConfiguration { configuration in
            configuration["admin"] = ["host": "127.0.0.1", "port": .integer(Int64(fixture.adminPort))]
        }
        let refused = try await fixture.lifecycle(["serve", "--config", fixture.configurationFile])
        #expect(refused.status == 2, "\(refused)")
        // Besides the JSON log lines (`serve.start_failed`), one line says what is wrong.
        #expect(refused.errorLines.filter { !$0.hasPrefix("{") }.count == 1, "\(refused.errors)")
        #expect(refused.errors.contains("admin listener enabled without a token"), "\(refused)")
        #expect(refused.errors.contains("LIFECYCLE_ADMIN_TOKEN"), "the line names the fix: \(refused)")

        let token = "environment-admin-token-0123456789abcdef"
        _ = try await fixture.start(environment: ["LIFECYCLE_ADMIN_TOKEN": token])
        #expect(try await Self.adminStatus(fixture, token: token) == 200)
        #expect(try await Self.adminStatus(fixture, token: ServeFixture.adminToken) == 401)
        #expect(await fixture.stop() == [0])

        // README: "Set admin.enabled to false to run without it": no token needed, nothing on the admin port.
        try fixture.updateConfiguration { configuration in
            configuration["admin"] = ["enabled": false, "port": .integer(Int64(fixture.adminPort))]
        }
        try await fixture.start()
        #expect(try await fixture.publicClient().get("/readyz").status == 200)
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        #expect(!Loopback.connect(probe, port: fixture.adminPort), "something answers on the admin port")
        #expect(fixture.logEvents("admin.started").count == 1, "only the run with the admin listener logged it")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "a serve that never received writes no heartbeat: refused starts in a restart loop leave the outage a gap"
    )
    func refusedStartsWriteNoHeartbeat() async throws {
        let fixture = try await ServeFixture()
        let store = fixture.directory.file("lifecycle.sqlite")
        // One real run, so the store exists and holds its heartbeats.
        try await fixture.start()
        #expect(await fixture.stop() == [0])
        let before = try StoreFile.count("SELECT count(*) FROM heartbeats", in: store)
        #expect(before >= 2, "start and stop of the real run")

        // A restart loop on a broken configuration (no admin token) ...
        try fixture.updateConfiguration { configuration in
            configuration["admin"] = ["host": "127.0.0.1", "port": .integer(Int64(fixture.adminPort))]
        }
        for _ in 0..<3 {
            let refused = try await fixture.lifecycle(["serve", "--config", fixture.configurationFile])
            #expect(refused.status == 2, "\(refused)")
            Self.expectLoggedAsNeverStarted(refused)
        }
        // ... and one whose public port another process holds.
        try fixture.writeSecret(Self.rotated, to: "secrets/admin-token")
        try fixture.updateConfiguration { configuration in
            configuration["admin"] = [
                "host": "127.0.0.1", "port": .integer(Int64(fixture.adminPort)), "tokenFile": "secrets/admin-token",
            ]
        }
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var reuse: Int32 = 1  // the first run's port may still be in TIME_WAIT
        setsockopt(holder, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        try #require(Loopback.bind(holder, port: fixture.publicPort) && listen(holder, 1) == 0)
        let taken = try await fixture.lifecycle(["serve", "--config", fixture.configurationFile])
        #expect(taken.status != 0, "\(taken)")
        Self.expectLoggedAsNeverStarted(taken)
        // ... and one whose admin port is taken: the public listener accepted for a moment, the start failed all
        // the same.
        close(holder)
        let adminHolder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(adminHolder) }
        setsockopt(adminHolder, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        try #require(Loopback.bind(adminHolder, port: fixture.adminPort) && listen(adminHolder, 1) == 0)
        let adminTaken = try await fixture.lifecycle(["serve", "--config", fixture.configurationFile])
        #expect(adminTaken.status != 0, "\(adminTaken)")
        Self.expectLoggedAsNeverStarted(adminTaken)
        // None of them received a notification, so none may count as the service being up.
        #expect(
            try StoreFile.count("SELECT count(*) FROM heartbeats", in: store) == before,
            "a start that never accepted traffic wrote a heartbeat")
    }

    /// A start that failed logs why as `serve.start_failed` and no `serve.stopped`: a log reader counting runs
    /// must not count one that never accepted traffic.
    static func expectLoggedAsNeverStarted(
        _ run: LifecycleProcess.Finished, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let events = run.errorLines.compactMap { JSONValue.parseIfValid(Array($0.utf8))?["event"]?.stringValue }
        #expect(events.contains("serve.start_failed"), "\(run)", sourceLocation: sourceLocation)
        #expect(!events.contains("serve.stopped"), "\(run)", sourceLocation: sourceLocation)
        #expect(!events.contains("serve.started"), "\(run)", sourceLocation: sourceLocation)
    }

    /// README, "Configuration": `LIFECYCLE_DATABASE_URL` overrides `storage.url` (so a password stays out of the
    /// file), read as the file's is: serve and a command run with it use that store (a relative path from the
    /// configuration's directory, not from wherever the process started), and the file's is never created.
    @Test("LIFECYCLE_DATABASE_URL overrides storage.url for serve and for commands, checked and resolved as the file's")
    func databaseURLFromEnvironment() async throws {
        let fixture = try await ServeFixture(environment: ["LIFECYCLE_DATABASE_URL": "sqlite:elsewhere.sqlite"])
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "email-disabled", subject: "000111.elsewhere.1")).status
                == 200)
        #expect(await fixture.stop() == [0])
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("lifecycle.sqlite")))
        #expect(
            try StoreFile.count("SELECT count(*) FROM notifications", in: fixture.directory.file("elsewhere.sqlite"))
                == 1)
        let shown = try await fixture.lifecycle([
            "account", "show", "--app", "shop", "--sub", "000111.elsewhere.1", "--config", fixture.configurationFile,
        ])
        #expect(shown.status == 0 && shown.output.contains("email-off"), "\(shown)")
        let refused = try await fixture.lifecycle(
            ["serve", "--config", fixture.configurationFile], environment: ["LIFECYCLE_DATABASE_URL": "mysql://db/x"])
        #expect(refused.status == 2, "\(refused)")
        #expect(
            refused.errorLines.last?.contains("LIFECYCLE_DATABASE_URL: unsupported storage URL scheme") == true,
            "\(refused)")
    }

    @Test("the master key file is created 0600 with one fresh key on first start, and kept as it is after")
    func masterKeyFileCreated() async throws {
        let fixture = try await ServeFixture()
        let path = fixture.directory.file("var/secrets/master.key")
        #expect(!FileManager.default.fileExists(atPath: path))
        _ = try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "email-disabled", subject: "000111.key.1")).status == 200)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(attributes)")
        let first = try String(contentsOfFile: path, encoding: .utf8)
        let lines = first.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].count == 64 && lines[0].allSatisfy(\.isHexDigit), "one key, 64 hex digits")
        #expect(await fixture.stop() == [0])

        _ = try await fixture.start()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == first, "a second start keeps the key")
        let account = try await fixture.admin("GET", "/v1/apps/shop/accounts/000111.key.1")
        #expect(account.status == 200, "the data sealed under the key reads back after the restart: \(account)")
        #expect(await fixture.stop() == [0])
    }

    @Test("LIFECYCLE_MASTER_KEY stands in for the file: serve runs on it and creates no key file")
    func masterKeyFromTheEnvironment() async throws {
        let fixture = try await ServeFixture()
        let key = String(repeating: "5a", count: 32)
        _ = try await fixture.start(environment: ["LIFECYCLE_MASTER_KEY": key])
        #expect(
            try await fixture.post(fixture.notification(type: "email-disabled", subject: "000111.key.2")).status == 200)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("var/secrets/master.key")))
        #expect(!fixture.log.contains(key), "the key reached the log")
        #expect(await fixture.stop() == [0])
    }
}
