import AppleRESTFake
import Foundation
import Glibc
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing

/// `lifecycle apple check` run as the real process against the stand-in Apple over TLS.
@Suite("lifecycle apple check against Apple's token endpoint")
struct AppleCheckCommandTests {
    /// A configuration directory with one app `shop` whose `signInWithApple` points at the fake.
    static func configure(
        _ setup: AppleTestSetup, keyID: String? = nil, key: P256PrivateKey? = nil
    ) throws -> (directory: TemporaryDirectory, file: String) {
        let directory = try TemporaryDirectory(prefix: "apple-check")
        let section = try setup.signInWithApple(directory: directory.path, keyID: keyID)
        if let key {
            // Another key in the same AuthKey_<key ID>.p8 file: the team does not know it.
            try FakeAppleTeam(
                teamID: setup.team.teamID, keyID: keyID ?? setup.team.keyID, privateKey: key,
                clientIDs: setup.team.clientIDs
            ).writeKeyFile(to: directory.path)
        }
        let document: JSONValue = [
            "apple": ["restBaseURL": .string(setup.fake.baseURL)],
            "apps": [
                [
                    "id": "shop",
                    "clientIds": [.string(AppleTestSetup.nativeClientID), .string(AppleTestSetup.webClientID)],
                    "signInWithApple": section,
                ]
            ],
        ]
        let file = directory.file("lifecycle.json")
        try document.serialized(pretty: true).write(toFile: file, atomically: true, encoding: .utf8)
        return (directory, file)
    }

    @Test("accepted credentials: ✓ for each client ID, ACCEPTED, exit 0, and Apple saw one made-up code per client")
    func accepted() async throws {
        let setup = try AppleTestSetup()
        defer { Task { await setup.fake.stop() } }
        let (directory, file) = try Self.configure(setup)
        _ = directory
        let result = try await LifecycleProcess.run(
            ["apple", "check", "--config", file], environment: setup.environment)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.output.contains("✓ token-endpoint [\(AppleTestSetup.nativeClientID)]: Apple accepted"), "\(result)")
        #expect(result.output.contains("✓ token-endpoint [\(AppleTestSetup.webClientID)]: Apple accepted"), "\(result)")
        #expect(result.output.contains("ACCEPTED: Apple accepts these credentials"), "\(result)")
        let exchanges = setup.fake.requests(to: .token)
        #expect(exchanges.count == 2)
        #expect(exchanges.allSatisfy { $0.error == "invalid_grant" && $0.clientSecretProblem == nil })

        let json = try await LifecycleProcess.run(
            ["apple", "check", "--app", "shop", "--json", "--config", file], environment: setup.environment)
        #expect(json.status == 0, "\(json)")
        let document = JSONValue.parseIfValid(Array(json.output.utf8))
        #expect(document?["accepted"] == .bool(true), "\(json)")
        #expect(document?["apps"]?.arrayValue?.first?["app"] == "shop", "\(json)")
    }

    @Test("a key that is not the team's: ✗ invalid_client with the fix naming team, key and client ID, exit 1")
    func wrongKey() async throws {
        let setup = try AppleTestSetup()
        defer { Task { await setup.fake.stop() } }
        let (directory, file) = try Self.configure(setup, key: try P256PrivateKey.generate())
        _ = directory
        let result = try await LifecycleProcess.run(
            ["apple", "check", "--config", file], environment: setup.environment)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.output.contains(
                "✗ token-endpoint [\(AppleTestSetup.nativeClientID)]: Apple refused the client authentication (invalid_client)"
            ),
            "\(result)")
        #expect(
            result.output.contains("    fix: check that team ID \(AppleTestSetup.teamID) owns the key"), "\(result)")
        #expect(result.output.contains("NOT ACCEPTED"), "\(result)")
        #expect(setup.fake.requests(to: .token).allSatisfy { $0.clientSecretProblem != nil })
    }

    @Test("Apple answering invalid_client: ✗ and exit 1, also in --json")
    func invalidClient() async throws {
        let setup = try AppleTestSetup()
        defer { Task { await setup.fake.stop() } }
        setup.fake.setBehaviour(.invalidClient, for: .token)
        let (directory, file) = try Self.configure(setup)
        _ = directory
        let result = try await LifecycleProcess.run(
            ["apple", "check", "--config", file], environment: setup.environment)
        #expect(result.status == 1, "\(result)")
        #expect(result.output.contains("✗ token-endpoint [\(AppleTestSetup.webClientID)]"), "\(result)")
        let json = try await LifecycleProcess.run(
            ["apple", "check", "--json", "--config", file], environment: setup.environment)
        #expect(json.status == 1, "\(json)")
        #expect(JSONValue.parseIfValid(Array(json.output.utf8))?["accepted"] == .bool(false), "\(json)")
    }

    @Test("without the fake's CA in the trust store the check fails on its line, never passes")
    func untrusted() async throws {
        let setup = try AppleTestSetup()
        defer { Task { await setup.fake.stop() } }
        let (directory, file) = try Self.configure(setup)
        _ = directory
        let result = try await LifecycleProcess.run(
            ["apple", "check", "--config", file], environment: ["SSL_CERT_FILE": "/nonexistent"])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.output.contains("✗ token-endpoint [\(AppleTestSetup.nativeClientID)]: cannot reach"), "\(result)")
        #expect(setup.fake.requests(to: .token).isEmpty)
    }

    @Test("--help says what invalid_grant and invalid_client mean and the exit statuses")
    func help() async throws {
        let result = try await LifecycleProcess.run(["apple", "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("invalid_grant   ✓ the credentials are accepted"), "\(result)")
        #expect(result.output.contains("invalid_client  ✗ the key, team ID, key ID or client ID is wrong"))
        #expect(result.output.contains("exit status: 0 Apple accepted"))
    }

    @Test("a key file readable by others is refused in one line naming the file and chmod 600; so is a missing field")
    func configurationErrors() async throws {
        let setup = try AppleTestSetup()
        defer { Task { await setup.fake.stop() } }
        let (directory, file) = try Self.configure(setup)
        let keyFile = directory.file("AuthKey_\(AppleTestSetup.keyID).p8")
        #expect(chmod(keyFile, 0o644) == 0)
        let open = try await LifecycleProcess.run(["apple", "check", "--config", file], environment: setup.environment)
        #expect(open.status == 2, "\(open)")
        #expect(open.errorLines.count == 1, "\(open)")
        #expect(
            open.errors.contains(
                "apps[0].signInWithApple.privateKeyFile: \(keyFile) is readable by others (mode 0644); run chmod 600 \(keyFile)"
            ),
            "\(open)")
        #expect(setup.fake.requests.isEmpty)

        #expect(chmod(keyFile, 0o600) == 0)
        var document = try #require(JSONValue.parseIfValid(Array(try Data(contentsOf: URL(fileURLWithPath: file)))))
        guard case .object(var root) = document, case .array(var apps)? = root["apps"],
            case .object(var app) = apps[0], case .object(var section)? = app["signInWithApple"]
        else { throw ConfigurationShapeError() }
        section["teamId"] = nil
        app["signInWithApple"] = .object(section)
        apps[0] = .object(app)
        root["apps"] = .array(apps)
        document = .object(root)
        try document.serialized(pretty: true).write(toFile: file, atomically: true, encoding: .utf8)
        let missing = try await LifecycleProcess.run(
            ["apple", "check", "--config", file], environment: setup.environment)
        #expect(missing.status == 2, "\(missing)")
        #expect(missing.errorLines.count == 1, "\(missing)")
        #expect(missing.errors.contains("apps[0].signInWithApple.teamId: missing"), "\(missing)")
    }
}

struct ConfigurationShapeError: Error {}
