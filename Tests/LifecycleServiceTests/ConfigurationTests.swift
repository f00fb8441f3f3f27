import AppleRESTFake
import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleEngine
@testable import LifecycleServer

@Suite("Configuration file")
struct ConfigurationTests {
    static let minimal: JSONValue = ["apps": [["id": "shop", "clientIds": ["com.example.shop"]]]]

    func parse(_ document: JSONValue) throws(ConfigurationError) -> ServiceConfiguration {
        try ServiceConfiguration.parse(document, file: "lifecycle.json", baseDirectory: "/etc/lifecycle")
    }

    @Test("a minimal file gets the documented defaults, with paths resolved against the file's directory")
    func defaults() throws {
        let configuration = try parse(Self.minimal)
        #expect(configuration.storage.sqlitePath == "/etc/lifecycle/var/lifecycle.sqlite")
        #expect(configuration.publicListener.notificationPath == "/apple/notifications")
        #expect(configuration.admin.host == "127.0.0.1")
        #expect(configuration.apple.jwks == "https://appleid.apple.com/auth/keys")
        #expect(configuration.apple.leewaySeconds == 60)
        #expect(configuration.app(forClientID: "com.example.shop")?.id == "shop")
        #expect(configuration.app(forClientID: "com.example.other") == nil)
        #expect(configuration.secrets.masterKeyFile == "/etc/lifecycle/var/secrets/master.key")
        #expect(configuration.keys.rotateEveryDays == nil && configuration.keys.fileCheckSeconds == 5)
        #expect(configuration.erasure.backupRetentionDays == nil)
        #expect(configuration.apple.probe == AppleProbeConfiguration())
        #expect(configuration.apple.probe.enabled && configuration.apple.probe.maxPerSecond == 5)
        #expect(configuration.apple.probe.retrySeconds == 3_600 && configuration.apple.probe.pollSeconds == 60)
    }

    static let app: JSONValue = ["id": "shop", "clientIds": ["a"]]

    static let mistakes: [(JSONValue, String)] = [
        (["apps": [["id": "shop", "clientIds": ["a"]]], "publc": [:]], "lifecycle.json: publc: unknown key"),
        (["apps": [["id": "shop", "clientID": ["a"]]]], "apps[0].clientID: unknown key"),
        (["apps": [["id": "shop", "clientIds": []]]], "apps[0].clientIds: missing or empty"),
        (["apps": [["id": "shop", "clientIds": [1]]]], "apps[0].clientIds[0]: expected a non-empty string"),
        (["apps": []], "apps: no app configured"),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]], ["id": "blog", "clientIds": ["a"]]]],
            "apps[1].clientIds: a is already listed by app shop"
        ),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "public": ["port": 70000]],
            "public.port: 70000 is out of range"
        ),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "public": ["port": "80"]], "public.port: expected an integer"
        ),
        (["apps": [["id": "shop", "clientIds": ["a"]]], "logLevel": "loud"], "logLevel: unknown level loud"),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "storage": ["url": "mysql://x"]],
            "storage.url: unsupported storage URL scheme"
        ),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "reconcile": ["heartbeatSeconds": 300]],
            "reconcile.heartbeatSeconds: 300 is not shorter than gapThresholdSeconds"
        ),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "keys": ["rotateEveryDays": 0]],
            "keys.rotateEveryDays: 0 is out of range 1...3650"
        ),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "erasure": ["backupRetentionDays": "35"]],
            "erasure.backupRetentionDays: expected an integer"
        ),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "secrets": ["masterKey": "x"]],
            "secrets.masterKey: unknown key"
        ),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "apple": ["probe": ["maxPerSecond": 0]]],
            "apple.probe.maxPerSecond: 0 is out of range 1...1000"
        ),
        (
            ["apps": [["id": "shop", "clientIds": ["a"]]], "apple": ["probe": ["everySeconds": 60]]],
            "apple.probe.everySeconds: unknown key"
        ),
    ]

    @Test("a mistake fails with one line naming the field and the fix", arguments: mistakes)
    func rejects(document: JSONValue, expected: String) {
        #expect {
            try parse(document)
        } throws: { error in
            let text = String(describing: error)
            return text.contains(expected) && !text.contains("\n")
        }
    }

    @Test("a reload keeps the settings bound at start and names them; everything else is the new file's")
    func reloadKeepsStartupSettings() throws {
        let running = try parse(Self.minimal)
        let edited = try parse([
            "apps": [["id": "shop", "clientIds": ["com.example.shop"]], ["id": "blog", "clientIds": ["b"]]],
            "public": ["port": 9090], "storage": ["url": "sqlite:/elsewhere.sqlite"], "logLevel": "debug",
            "admin": ["port": 9091, "tokenFile": "other-token"],
        ])
        let (next, kept) = edited.keepingStartupSettings(of: running)
        #expect(kept == ["storage", "public", "admin.enabled/host/port"])
        #expect(next.publicListener.port == 8080 && next.storage == running.storage && next.admin.port == 8081)
        #expect(next.apps.map(\.id) == ["shop", "blog"] && next.logLevel == .debug)
        #expect(next.admin.tokenFile == "/etc/lifecycle/other-token", "the token file reloads")
        #expect(try parse(Self.minimal).keepingStartupSettings(of: running).kept.isEmpty)
    }

    /// Regression (fuzzing, configuration-file): a key holding a newline made the "unknown key" error two
    /// lines, so a file could forge a line in the operator's terminal or log.
    @Test("an error quoting a key with control characters stays one line, from the real command too")
    func controlCharactersInKeyAreEscaped() async throws {
        let document: JSONValue = [
            "apps": [["id": "shop", "clientIds": ["a"]]], "apple": ["leewaySec\nds": 1, "x\u{2028}y": 2],
        ]
        #expect {
            try parse(document)
        } throws: { error in
            let line = String(describing: error)
            return !line.contains("\n") && !line.contains("\u{2028}") && line.contains("leewaySec\\u{A}ds")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("lifecycle.json").path
        try Data(document.serialized().utf8).write(to: URL(fileURLWithPath: file))
        let outcome = try await LifecycleProcess.run(["reconcile", "--config", file])
        #expect(outcome.status == 2)
        #expect(outcome.errors.split(separator: "\n").count == 1, "\(outcome.errors)")
        #expect(outcome.errors.contains("unknown key"))
    }

    /// `lifecycle.example.json` as shipped, loaded with its paths resolved against the repository, except the
    /// `.p8` key it names (no key is ever committed): a key made now, mode 0600, stands in for it.
    static func loadExample() throws -> ServiceConfiguration {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = root.appendingPathComponent("lifecycle.example.json").path
        var document = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: file)))
        let keys = try TemporaryDirectory(prefix: "example-key")
        let keyFile = try FakeAppleTeam(keyID: "F6G7H8I9J0", clientIDs: []).writeKeyFile(to: keys.path)
        document = document.replacing(key: "privateKeyFile", with: .string(keyFile))
        return try ServiceConfiguration.parse(document, file: file, baseDirectory: root.path)
    }

    @Test("the shipped example configuration is valid, Sign in with Apple credentials included")
    func exampleIsValid() throws {
        let configuration = try Self.loadExample()
        #expect(configuration.apps.map(\.id) == ["shop"])
        let credentials = try #require(configuration.apps[0].signInWithApple?.credentials)
        #expect(credentials.clients.map(\.kind) == [.native, .web])
        #expect(configuration.apple.restBaseURL.description == "https://appleid.apple.com")
    }

    @Test(
        "Sign in with Apple mistakes fail with one line naming the field",
        arguments: [
            (["teamId": "short"], "apps[0].signInWithApple.teamId: team ID \"short\" must be 10 characters"),
            (["keyId": nil], "apps[0].signInWithApple.keyId: missing"),
            (
                ["clients": [["id": "com.example.unlisted", "kind": "native"]]],
                "apps[0].signInWithApple.clients[0].id: com.example.unlisted is not one of the app's clientIds"
            ),
            (["clients": [["id": "com.example.shop", "kind": "ios"]]], "clients[0].kind: unknown kind ios"),
            (["privateKeyFile": "/nonexistent/AuthKey.p8"], "privateKeyFile: /nonexistent/AuthKey.p8 cannot be read"),
        ] as [([String: JSONValue?], String)])
    func appleMistakes(changes: [String: JSONValue?], expected: String) throws {
        let keys = try TemporaryDirectory(prefix: "config-key")
        let keyFile = try FakeAppleTeam(keyID: "KEYA1B2C3D", clientIDs: []).writeKeyFile(to: keys.path)
        var section: JSONObject = [
            "teamId": "TEAMA1B2C3", "keyId": "KEYA1B2C3D", "privateKeyFile": .string(keyFile),
            "clients": [["id": "com.example.shop", "kind": "native"]],
        ]
        for (key, value) in changes { section[key] = value }
        let document: JSONValue = [
            "apps": [["id": "shop", "clientIds": ["com.example.shop"], "signInWithApple": .object(section)]]
        ]
        do {
            _ = try parse(document)
            Issue.record("accepted \(changes)")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test(
        "retention defaults keep reports' evidence 24 months; the example states them; floors and look-back are enforced"
    )
    func retention() throws {
        let defaults = try parse(Self.minimal).retention
        #expect(defaults.periods[.history] == 730 && defaults.periods[.findings] == 730)
        #expect(defaults.periods[.notificationPayloads] == 90 && defaults.periods[.outbox] == 30)
        #expect(try Self.loadExample().retention == defaults, "lifecycle.example.json shows the defaults")
        let mistakes: [(JSONValue, String)] = [
            (["findingDays": 100], "retention.findingDays: 100 days is shorter than 730"),
            (["outboxDays": 0], "retention.outboxDays: 0 is out of range"),
            (["heartbeatDays": 30, "historyDays": 800], "does not cover reconcile.lookbackHours"),
            (["keepForever": true], "unknown key"),
        ]
        for (section, expected) in mistakes {
            var object: JSONObject = [
                "apps": [["id": "shop", "clientIds": ["com.example.shop"]]], "retention": section,
            ]
            if section["heartbeatDays"] != nil { object["reconcile"] = ["lookbackHours": 8000] }
            let document = JSONValue.object(object)
            do {
                _ = try parse(document)
                Issue.record("accepted \(section)")
            } catch {
                #expect(error.description.contains(expected), "\(error)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    @Test("apple.restBaseURL defaults to Apple's and refuses anything but https")
    func restBaseURL() throws {
        #expect(try parse(Self.minimal).apple.restBaseURL.description == "https://appleid.apple.com")
        let document: JSONValue = [
            "apple": ["restBaseURL": "http://127.0.0.1:9"], "apps": [["id": "shop", "clientIds": ["a"]]],
        ]
        #expect(throws: ConfigurationError.self) { try parse(document) }
    }

    @Test("LIFECYCLE_DATABASE_URL overrides the storage URL")
    func environmentOverride() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("lifecycle.json").path
        try Data(Self.minimal.serialized().utf8).write(to: URL(fileURLWithPath: file))
        let configuration = try ServiceConfiguration.load(
            file: file, environment: ["LIFECYCLE_DATABASE_URL": "sqlite:/tmp/other.sqlite"])
        #expect(configuration.storage.sqlitePath == "/tmp/other.sqlite")
    }

    @Test("a missing file says how to create one")
    func missingFile() {
        #expect {
            try ServiceConfiguration.load(file: "/nonexistent/lifecycle.json", environment: [:])
        } throws: { error in
            String(describing: error).contains("copy lifecycle.example.json")
        }
    }
}

extension JSONValue {
    /// This object with `key` set to `value` (appended when new).
    func adding(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[key] = value
        return .object(object)
    }

    /// Every member named `key`, at any depth, with `value` instead.
    func replacing(key: String, with value: JSONValue) -> JSONValue {
        switch self {
        case .object(let object):
            return .object(
                JSONObject(
                    members: object.members.map { member in
                        (member.key, member.key == key ? value : member.value.replacing(key: key, with: value))
                    }))
        case .array(let elements):
            return .array(elements.map { $0.replacing(key: key, with: value) })
        default:
            return self
        }
    }
}
