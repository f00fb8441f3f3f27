import Foundation
import LifecycleCore
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

    @Test("the shipped example configuration is valid")
    func exampleIsValid() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = root.appendingPathComponent("lifecycle.example.json").path
        let configuration = try ServiceConfiguration.load(file: file, environment: [:])
        #expect(configuration.apps.map(\.id) == ["shop"])
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
