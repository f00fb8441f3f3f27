import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleDevTools
import LifecycleSQL
import Synchronization
import TestSupport
import Testing

@testable import LifecycleEngine
@testable import LifecycleStore

/// A `lifecycle serve` process run from the built executable and watched only from outside, as an operator
/// would: its directory (a configuration file the test edits and reloads with SIGHUP, the JWKS of the test
/// key, an admin token file), the public and admin listeners, `/metrics`, its log file, the files it writes,
/// and `lifecycle` commands run against the same configuration. Every process it started is killed when the
/// fixture goes away, so a failing test leaves nothing running.
final class ServeFixture: Sendable {
    static let adminToken = "serve-fixture-admin-token-0123456789"
    static let clientID = ServiceHarness.clientID
    static let appID = ServiceHarness.appID

    let directory: TemporaryDirectory
    let publicPort: Int
    let adminPort: Int
    let tokens = TestTokenFactory()
    let configurationFile: String
    /// Where the serve processes' standard error (the JSON log) goes.
    let logFile: String
    /// Environment of every process this fixture starts (e.g. the test clock offset).
    let environment: [String: String]
    /// The `LIFECYCLE_CLOCK_OFFSET_SECONDS` given to the processes.
    let clockOffsetSeconds: Int64
    /// Serves HTTPS with a certificate issued by `ca.pem` when true.
    let tls: Bool
    /// The test CA that issued the certificate (`tls` only), for issuing a replacement.
    let authority: DevelopmentCertificates.Issued?
    private let configuration: Mutex<JSONObject>
    private let processes = Mutex<[LifecycleProcess]>([])

    /// - Parameters:
    ///   - apps: the `apps` array; default one app `shop` without webhook.
    ///   - extra: top-level members replacing the defaults (storage, erasure, reconcile, ...).
    init(
        apps: [JSONValue]? = nil, extra: JSONObject = [:], clockOffsetSeconds: Int64 = 0, tls: Bool = false,
        environment: [String: String] = [:]
    ) async throws {
        directory = try TemporaryDirectory(prefix: "lifecycle-serve")
        publicPort = try await WebhookReceiver.unusedPort()
        adminPort = try await WebhookReceiver.unusedPort()
        configurationFile = directory.file("lifecycle.json")
        logFile = directory.file("serve.log")
        self.clockOffsetSeconds = clockOffsetSeconds
        self.tls = tls
        var environment = environment
        if clockOffsetSeconds != 0 { environment["LIFECYCLE_CLOCK_OFFSET_SECONDS"] = String(clockOffsetSeconds) }
        self.environment = environment
        try Data(tokens.jwks.encoded()).write(to: URL(fileURLWithPath: directory.file("jwks.json")))
        try FileManager.default.createDirectory(atPath: directory.file("secrets"), withIntermediateDirectories: true)
        try Data((Self.adminToken + "\n").utf8).write(to: URL(fileURLWithPath: directory.file("secrets/admin-token")))
        var publicListener: JSONObject = ["host": "127.0.0.1", "port": .integer(Int64(publicPort))]
        authority = tls ? try DevelopmentCertificates.authority(commonName: "Serve fixture CA") : nil
        if let authority {
            try authority.certificatePEM.write(toFile: directory.file("ca.pem"), atomically: true, encoding: .utf8)
            let leaf = try DevelopmentCertificates.issue(
                DevelopmentCertificates.Request(
                    commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]),
                signedBy: authority)
            try leaf.certificatePEM.write(toFile: directory.file("server.crt"), atomically: true, encoding: .utf8)
            try leaf.privateKeyPEM.write(toFile: directory.file("server.key"), atomically: true, encoding: .utf8)
            publicListener["tls"] = ["certificateFile": "server.crt", "privateKeyFile": "server.key"]
        }
        var config: JSONObject = [
            "storage": ["url": "sqlite:lifecycle.sqlite"],
            "public": .object(publicListener),
            "admin": ["host": "127.0.0.1", "port": .integer(Int64(adminPort)), "tokenFile": "secrets/admin-token"],
            "apple": ["jwks": "jwks.json"],
            "apps": .array(apps ?? [Self.app()]),
            "pseudonymKeyFile": "secrets/pseudonym.key",
            "policiesDirectory": "policies",
            "reports": [
                "directory": "reports", "signingKeyFile": "secrets/report-ed25519.pem",
            ],
            "logLevel": "info",
        ]
        for member in extra { config[member.key] = member.value }
        configuration = Mutex(config)
        try FileManager.default.createDirectory(atPath: directory.file("policies"), withIntermediateDirectories: true)
        try writePolicy(Self.immediatePolicy())
        try writeConfiguration()
    }

    deinit {
        for process in processes.withLock({ $0 }) { process.kill(signal: SIGKILL) }
    }

    // MARK: Configuration

    /// An app object: `id`, its client id, optionally a webhook (with its secret file) and an erasure mapping
    /// of every category of ``immediatePolicy(version:within:)`` to `targets`.
    static func app(
        id: String = appID, clientID: String = clientID, webhook: String? = nil, secretFile: String? = nil,
        erasureTargets: JSONObject? = nil, categories: JSONObject? = nil, records: JSONValue? = nil
    ) -> JSONValue {
        var app: JSONObject = ["id": .string(id), "clientIds": [.string(clientID)]]
        if let webhook {
            app["webhook"] = ["url": .string(webhook), "secretFile": .string(secretFile ?? "secrets/\(id)-webhook")]
        }
        if let erasureTargets {
            app["policy"] = "immediate"
            app["targets"] = .object(erasureTargets)
            app["categories"] = .object(
                categories ?? [
                    "profile": .array(erasureTargets.keys.map { .string($0) } + ["self"]), "content": ["self"],
                ])
        }
        if let records { app["records"] = records }
        return .object(app)
    }

    /// A `sqlite` erasure target on `file` in the fixture directory: deletes the subject's `users` rows and
    /// checks none is left.
    static func sqliteTarget(_ file: String) -> JSONObject {
        [
            "app-db": [
                "type": "sqlite", "path": .string(file),
                "statements": ["DELETE FROM users WHERE apple_sub = :sub"],
                "verify": "SELECT count(*) FROM users WHERE apple_sub = :sub",
            ]
        ]
    }

    /// Deletion erases `profile` and `content` at once, within `within`.
    static func immediatePolicy(version: Int = 1, within: String = "P1M") -> String {
        """
        {
          "id": "immediate", "version": \(version), "jurisdiction": "EU", "timezone": "UTC",
          "rules": [
            {"on": ["account-deleted"], "erase": ["profile", "content"], "within": "\(within)", "basis": "test"}
          ]
        }
        """
    }

    func writePolicy(_ text: String, name: String = "immediate.json") throws {
        try text.write(toFile: directory.file("policies/" + name), atomically: true, encoding: .utf8)
    }

    /// Writes a webhook secret file (relative to the directory).
    func writeSecret(_ secret: String, to file: String) throws {
        try secret.write(toFile: directory.file(file), atomically: true, encoding: .utf8)
    }

    /// Changes the configuration object and rewrites the file (a running process sees it on SIGHUP).
    func updateConfiguration(_ change: (inout JSONObject) -> Void) throws {
        configuration.withLock { change(&$0) }
        try writeConfiguration()
    }

    /// Sets `members` of the `public` listener object (timeouts, limits, `metrics`), keeping the rest.
    func updatePublicListener(_ members: JSONObject) throws {
        try updateConfiguration { configuration in
            var listener = configuration["public"]?.objectValue ?? [:]
            for member in members { listener[member.key] = member.value }
            configuration["public"] = .object(listener)
        }
    }

    func writeConfiguration() throws {
        let text = JSONValue.object(configuration.withLock { $0 }).serialized(pretty: true)
        try text.write(toFile: configurationFile, atomically: true, encoding: .utf8)
    }

    /// Creates a SQLite app database with a `users` table holding `subjects`.
    func createAppDatabase(_ file: String, subjects: [String]) throws {
        try ErasureScenario.createAppDatabase(at: directory.file(file), subjects: subjects)
    }

    /// Rows of `subject` left in the app database's `users` table.
    func usersLeft(_ subject: String, in file: String) throws -> Int64 {
        let database = try ExternalSQLiteDatabase(path: directory.file(file), busyTimeoutMilliseconds: 1000)
        defer { database.close() }
        return try database.queryInteger(
            "SELECT count(*) FROM users WHERE apple_sub = :sub", parameters: ["sub": subject]) ?? -1
    }

    // MARK: Processes

    /// Starts `lifecycle serve --config FILE`; unless `waitingUntilReady` is false, returns once `/readyz`
    /// answers 200.
    @discardableResult
    func start(environment extra: [String: String] = [:], waitingUntilReady: Bool = true) async throws
        -> LifecycleProcess
    {
        var environment = self.environment
        for (name, value) in extra { environment[name] = value }
        let process = try LifecycleProcess.start(
            ["serve", "--config", configurationFile], environment: environment, standardError: logFile)
        processes.withLock { $0.append(process) }
        if waitingUntilReady { try await waitUntilReady() }
        return process
    }

    func waitUntilReady(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let response = try? await publicClient(timeout: .seconds(1)).get("/readyz"), response.status == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw LifecycleProcess.ProcessError.notReady
    }

    /// SIGTERM to every running serve process; their exit statuses.
    func stop() async -> [Int32] {
        var statuses: [Int32] = []
        for process in processes.withLock({ $0 }) where process.process.isRunning {
            process.kill(signal: SIGTERM)
            statuses.append(await process.waitForExit())
        }
        return statuses
    }

    /// SIGHUP, then waits until `lifecycle_config_reloads_total{result}` counts one more `result`. Records an
    /// issue (and goes on after the timeout, so what the reload should have changed is checked too) when the
    /// count never moves.
    func reload(
        _ process: LifecycleProcess, expecting result: String = "applied", timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = try await metric("lifecycle_config_reloads_total", ["result": result]) ?? 0
        process.kill(signal: SIGHUP)
        let moved = await eventually(timeout: timeout) {
            (try? await self.metric("lifecycle_config_reloads_total", ["result": result]) ?? 0) ?? 0 > before
        }
        if !moved {
            Issue.record(
                "SIGHUP was not counted as \(result) in lifecycle_config_reloads_total", sourceLocation: sourceLocation)
        }
    }

    /// Runs `lifecycle ARGUMENTS…` with this fixture's environment, in its directory.
    func lifecycle(_ arguments: [String], environment extra: [String: String] = [:]) async throws
        -> LifecycleProcess.Finished
    {
        var environment = self.environment
        for (name, value) in extra { environment[name] = value }
        return try await LifecycleProcess.run(arguments, environment: environment, directory: directory.path)
    }

    // MARK: HTTP

    func publicClient(timeout: Duration = .seconds(10)) -> HTTPClient {
        HTTPClient(
            host: "127.0.0.1", port: publicPort, timeout: timeout,
            tls: tls ? TLSClientConfiguration(serverName: "localhost", trustedCAFile: directory.file("ca.pem")) : nil)
    }

    var adminURL: String { "http://127.0.0.1:\(adminPort)" }

    /// The options that send a command through the running `serve`'s admin API instead of the store.
    var throughAdminAPI: [String] { ["--url", adminURL, "--token-file", directory.file("secrets/admin-token")] }

    /// POSTs a notification body to the public listener.
    func post(_ body: [UInt8]) async throws -> (status: Int, json: JSONValue?) {
        let response = try await publicClient().post(
            "/apple/notifications", headers: ["Content-Type": "application/json"], body: body)
        return (response.status, JSONValue.parseIfValid(response.body))
    }

    /// One admin API call with the bearer token.
    func admin(_ method: String, _ target: String, body: [UInt8] = []) async throws -> (status: Int, json: JSONValue?) {
        try await Self.admin(port: adminPort, method, target, body: body)
    }

    /// One admin API call with the bearer token to the admin listener on `port`: this fixture's, or that of a
    /// second instance started from a copy of its configuration.
    static func admin(
        port: Int, _ method: String, _ target: String, body: [UInt8] = []
    ) async throws -> (status: Int, json: JSONValue?) {
        // Longer than a route's own wait on an outside service (the Apple fake's 30 s), so the route's answer
        // is what the test sees.
        let client = HTTPClient(host: "127.0.0.1", port: port, timeout: .seconds(45))
        var headers: HTTPHeaders = ["Authorization": "Bearer \(adminToken)"]
        if !body.isEmpty { try headers.add(name: "Content-Type", value: "application/json") }
        let response = try await client.send(
            HTTPClientRequest(method: method, target: target, headers: headers, body: body))
        return (response.status, JSONValue.parseIfValid(response.body))
    }

    /// `GET /metrics` on the admin listener with the bearer token, as a Prometheus scrape job with
    /// `authorization: {credentials_file: …}` asks for it.
    func metrics() async throws -> String {
        try await Self.metrics(port: adminPort)
    }

    /// ``metrics()`` of the admin listener on `port`.
    static func metrics(port: Int) async throws -> String {
        let client = HTTPClient(host: "127.0.0.1", port: port, timeout: .seconds(10))
        let response = try await client.send(
            HTTPClientRequest(
                method: "GET", target: "/metrics", headers: ["Authorization": "Bearer \(adminToken)"], body: []))
        return String(decoding: response.body, as: UTF8.self)
    }

    /// One sample of `/metrics`, nil when absent.
    func metric(_ name: String, _ labels: [String: String] = [:]) async throws -> Double? {
        PrometheusText.value(in: try await metrics(), name: name, labels: labels)
    }

    // MARK: Notifications and logs

    /// Now as the serve processes see it (the real clock plus the test offset).
    var now: Instant { SystemClock().now().adding(seconds: clockOffsetSeconds) }

    /// A notification as Apple sends it, signed by the test key at ``now``.
    func notification(
        type: String, subject: String, audience: String = ServeFixture.clientID, eventTime: Instant? = nil
    ) -> [UInt8] {
        let issued = now
        let event = TestTokenFactory.event(
            type: type, subject: subject, eventTime: .integer((eventTime ?? issued).millisecondsSinceEpoch))
        let claims = TestTokenFactory.claims(
            event: event, audience: audience, issuedAt: issued,
            overrides: ["jti": .string(NotificationSigner.makeJTI())])
        return NotificationBody.encode(jws: tokens.token(claims: claims))
    }

    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// The log lines (JSON objects) whose `event` is `name`.
    func logEvents(_ name: String) -> [JSONValue] {
        log.split(separator: "\n").compactMap { JSONValue.parseIfValid(Array($0.utf8)) }.filter {
            $0["event"]?.stringValue == name
        }
    }

    /// Every file under `reports/`, relative and sorted, walked one directory at a time. `serve` may be writing
    /// meanwhile (a report through `<name>.tmp` and a rename, log tiles, checkpoints): an entry that vanishes
    /// between the listing and its `stat` is skipped, never the end of the walk.
    func reportFiles() -> [String] {
        var files: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let path = directory.file("reports") + (relative.isEmpty ? "" : "/" + relative)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { continue }
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory) else {
                    continue
                }
                if isDirectory.boolValue { pending.append(child) } else { files.append(child) }
            }
        }
        return files.sorted()
    }
}

/// Polls `condition` every 50 ms until it holds or `timeout` passes; whether it held.
func eventually(timeout: Duration, _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return await condition()
}

/// Reads one sample out of the Prometheus text exposition format.
enum PrometheusText {
    static func value(in text: String, name: String, labels: [String: String]) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            let series = parts[0]
            let seriesName: Substring
            var seriesLabels: [String: String] = [:]
            if let brace = series.firstIndex(of: "{") {
                seriesName = series[..<brace]
                let inner = series[series.index(after: brace)..<(series.lastIndex(of: "}") ?? series.endIndex)]
                for pair in inner.split(separator: ",") {
                    let halves = pair.split(separator: "=", maxSplits: 1)
                    guard halves.count == 2 else { continue }
                    seriesLabels[String(halves[0])] = String(halves[1].dropFirst().dropLast())
                }
            } else {
                seriesName = series
            }
            if seriesName == name, seriesLabels == labels { return Double(parts[1]) }
        }
        return nil
    }
}
