import AppleNotifications
import Foundation
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleCLI

@Suite("lifecycle inspect and lifecycle ingest")
struct InspectAndIngestCommandTests {
    let harness: ServiceHarness
    init() throws { harness = try ServiceHarness() }

    func run(_ arguments: [String], stdin: Data = Data()) async -> (status: Int32, out: String, err: String) {
        let captured = CommandIO.capturing(standardInput: stdin)
        let status = await CommandLineInterface.run(arguments: arguments, io: captured.io)
        return (status, captured.output(), captured.errors())
    }

    /// Apple's fixture times: event at 2025-07-15T09:36:30.719Z, issued a second later.
    func fixtureToken(claims: JSONObject = TestTokenFactory.claims()) throws -> String {
        let file = harness.directory.file("token-\(UUID().uuidString).txt")
        try Data(harness.tokens.token(claims: claims).utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    @Test("inspect prints the decoded event with event_time as an ISO-8601 instant and exits 0")
    func inspectValid() async throws {
        let file = try fixtureToken()
        let result = await run([
            "inspect", "--jwks", harness.directory.file("jwks.json"), "--audience", TestFixtures.audience,
            "--at", "2025-07-15T09:37:00Z", file,
        ])
        #expect(result.status == 0)
        let output = try #require(JSONValue.parseIfValid(Array(result.out.utf8)))
        #expect(output["valid"] == true)
        #expect(output["event"]?["type"] == "consent-revoked")
        #expect(output["event"]?["event_time"] == "2025-07-15T09:36:30.719Z")
        #expect(output["header"]?["alg"] == "RS256")
        #expect(output["claims"]?["aud"] == .string(TestFixtures.audience))
    }

    @Test("inspect of a bad token prints valid:false with the reason code and exits 1")
    func inspectInvalid() async throws {
        let file = try fixtureToken()
        let result = await run([
            "inspect", "--jwks", harness.directory.file("jwks.json"), "--audience", "com.other.app",
            "--at", "2025-07-15T09:37:00Z", file,
        ])
        #expect(result.status == 1)
        let output = try #require(JSONValue.parseIfValid(Array(result.out.utf8)))
        #expect(output["valid"] == false)
        #expect(output["error"]?["code"] == "invalid_audience")
    }

    @Test("inspect reads a request body from standard input and refuses an expired token unless asked")
    func inspectExpiredFromStandardInput() async throws {
        let body = Data(NotificationBody.encode(jws: harness.tokens.token()))
        let arguments = [
            "inspect", "--jwks", harness.directory.file("jwks.json"), "--audience", TestFixtures.audience,
            "--at", "2025-07-20T00:00:00Z",
        ]
        let expired = await run(arguments, stdin: body)
        #expect(expired.status == 1)
        #expect(JSONValue.parseIfValid(Array(expired.out.utf8))?["error"]?["code"] == "expired")
        let allowed = await run(arguments + ["--allow-expired", "-"], stdin: body)
        #expect(allowed.status == 0)
        #expect(JSONValue.parseIfValid(Array(allowed.out.utf8))?["acceptedExpired"] == true)
    }

    /// Regression: this answered `malformed_body`, pointing at the wrong layer.
    @Test("inspect of a bare token with non-base64url bytes in its header reports malformed_jws")
    func inspectNonBase64Header() async throws {
        let parts = harness.tokens.token().split(separator: ".", omittingEmptySubsequences: false)
        let file = harness.directory.file("hostile-token.txt")
        try Data("!!!.\(parts[1]).\(parts[2])\n".utf8).write(to: URL(fileURLWithPath: file))
        let result = await run([
            "inspect", "--jwks", harness.directory.file("jwks.json"), "--audience", TestFixtures.audience, file,
        ])
        #expect(result.status == 1)
        let output = try #require(JSONValue.parseIfValid(Array(result.out.utf8)))
        #expect(output["error"]?["code"] == "malformed_jws")
    }

    @Test("inspect with a bad option names it and exits 2")
    func inspectUsage() async {
        let result = await run(["inspect", "--jwsk", "x"])
        #expect(result.status == 2)
        #expect(result.err.contains("--jwsk is not an option of 'lifecycle inspect'; usage: lifecycle inspect"))
    }

    @Test("ingest twice on the same file stores each notification once")
    func ingestTwice() async throws {
        let lines =
            ["email-disabled", "consent-revoked", "account-delete"].map { type in
                String(decoding: harness.body(type: type), as: UTF8.self)
            } + [harness.tokens.token(claims: TestTokenFactory.claims(overrides: ["jti": "BareTokenOnItsOwnLine1"]))]
        let archive = harness.directory.file("archive.jsonl")
        try Data(("# archived notifications\n" + lines.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: archive))

        let first = await run([
            "ingest", "--config", harness.configurationFile, "--file", archive, "--allow-expired", "--json",
        ])
        #expect(first.status == 0, "\(first.err)")
        let firstSummary = JSONValue.parseIfValid(Array(first.out.utf8))
        #expect(firstSummary?["accepted"] == 4)
        let second = await run([
            "ingest", "--config", harness.configurationFile, "--file", archive, "--allow-expired", "--json",
        ])
        #expect(second.status == 0)
        #expect(JSONValue.parseIfValid(Array(second.out.utf8))?["duplicate"] == 4)

        let store = try await SQLiteStore.open(path: harness.directory.file("lifecycle.sqlite"))
        #expect(try await store.read { try $0.notificationCount() } == 4)
        let bare = try await store.read { try $0.notification(jti: "BareTokenOnItsOwnLine1") }
        #expect(bare?.notification.acceptedExpired == true)
        #expect(bare?.source == "replay")
        await store.close()
    }

    @Test("ingest without --allow-expired rejects an old token, names the line, and exits 1")
    func ingestExpired() async throws {
        let archive = harness.directory.file("old.txt")
        try Data((harness.tokens.token() + "\n").utf8).write(to: URL(fileURLWithPath: archive))
        let result = await run(["ingest", "--config", harness.configurationFile, "--file", archive])
        #expect(result.status == 1)
        #expect(result.err.contains("line 1: rejected: expired"))
    }
}
