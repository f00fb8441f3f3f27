import AppleNotifications
import Foundation
import LifecycleCore
import LifecycleDevTools
import TestSupport
import Testing

/// `lifecycle ingest` (README, "Commands"; `ingest --help`) as a process against a store on disk: an archive
/// of bodies and bare JWS, with comments and blank lines, goes through the live path; expired tokens need
/// `--allow-expired`; the exit status says whether any line was rejected; a second run stores nothing twice.
@Suite("lifecycle ingest as a process")
struct IngestCommandProcessTests {
    /// A signed notification of `subject`, issued `ageSeconds` ago (Apple's tokens live 24 h).
    static func token(_ fixture: ServeFixture, subject: String, ageSeconds: Int64 = 0) -> String {
        let issued = fixture.now.adding(seconds: -ageSeconds)
        let event = TestTokenFactory.event(
            type: "email-disabled", subject: subject, eventTime: .integer(issued.millisecondsSinceEpoch))
        let claims = TestTokenFactory.claims(
            event: event, audience: ServeFixture.clientID, issuedAt: issued,
            overrides: ["jti": .string(NotificationSigner.makeJTI())])
        return fixture.tokens.token(claims: claims)
    }

    static func summary(_ finished: LifecycleProcess.Finished) -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for name in ["accepted", "duplicate", "ignored", "rejected"] {
            counts[name] = JSONValue.parseIfValid(Array(finished.output.utf8))?[name]?.integerValue
        }
        return counts
    }

    @Test(
        "an archive replays through the live path: rejected lines exit 1, --allow-expired takes old tokens, a rerun only finds duplicates"
    )
    func replay() async throws {
        let fixture = try await ServeFixture()
        let body = String(
            decoding: fixture.notification(type: "email-enabled", subject: "000333.ingest.0001"), as: UTF8.self)
        let bare = Self.token(fixture, subject: "000333.ingest.0002")
        let expired = Self.token(fixture, subject: "000333.ingest.0003", ageSeconds: 3 * 86_400)
        let archive = fixture.directory.file("archive.jsonl")
        try ["# exported 2026-11-30", body, "", "  " + bare, expired, "not a notification"].joined(separator: "\n")
            .write(toFile: archive, atomically: true, encoding: .utf8)

        let first = try await fixture.lifecycle([
            "ingest", "--file", archive, "--json", "--config", fixture.configurationFile,
        ])
        #expect(first.status == 1, "two lines rejected: \(first)")
        #expect(Self.summary(first) == ["accepted": 2, "duplicate": 0, "ignored": 0, "rejected": 2], "\(first)")
        let reasons = JSONValue.parseIfValid(Array(first.output.utf8))?["rejectedByReason"]
        #expect(reasons?["expired"]?.integerValue == 1 && reasons?["malformed_body"]?.integerValue == 1, "\(first)")

        let second = try await fixture.lifecycle([
            "ingest", "--file", archive, "--allow-expired", "--json", "--config", fixture.configurationFile,
        ])
        #expect(second.status == 1, "the garbage line still is rejected: \(second)")
        #expect(Self.summary(second) == ["accepted": 1, "duplicate": 2, "ignored": 0, "rejected": 1], "\(second)")

        try [body, bare, expired].joined(separator: "\n").write(toFile: archive, atomically: true, encoding: .utf8)
        let third = try await fixture.lifecycle([
            "ingest", "--file", archive, "--allow-expired", "--config", fixture.configurationFile,
        ])
        #expect(third.status == 0, "every line stored or duplicate: \(third)")
        #expect(third.output.contains("accepted: 0, duplicate: 3, ignored: 0, rejected: 0"), "\(third)")

        // The store holds each once, readable by serve.
        let store = fixture.directory.file("lifecycle.sqlite")
        #expect(try StoreFile.count("SELECT count(*) FROM notifications", in: store) == 3)
        try await fixture.start()
        let account = try await fixture.admin("GET", "/v1/apps/shop/accounts/000333.ingest.0003")
        #expect(account.status == 200, "the expired one, stored with --allow-expired: \(account)")
        #expect(await fixture.stop() == [0])
    }

    /// reports/README.md, `acknowledgedAt`: the 200 answered to Apple after the commit. A deletion replayed from
    /// an archive was answered to nobody when it was stored, so it has none; one `serve` took has it.
    @Test("a deletion replayed with lifecycle ingest has no acknowledgedAt in the report; one serve received has")
    func replayedDeletionIsNotAcknowledged() async throws {
        let fixture = try await ServeFixture()
        let archive = fixture.directory.file("archive.jsonl")
        try String(
            decoding: fixture.notification(type: "account-delete", subject: "000333.replayed.0001"), as: UTF8.self
        ).write(toFile: archive, atomically: true, encoding: .utf8)
        let replayed = try await fixture.lifecycle(["ingest", "--file", archive, "--config", fixture.configurationFile])
        #expect(replayed.status == 0, "\(replayed)")
        try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: "000333.live.0002")).status
                == 200)
        #expect(await fixture.stop() == [0])

        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")
        let file = try #require(fixture.reportFiles().first { $0.hasSuffix("-deletion-compliance.json") })
        let report = try JSONValue.parse(
            Array(try #require(FileManager.default.contents(atPath: fixture.directory.file("reports/" + file)))))
        let rows = report["subjects"]?.arrayValue ?? []
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.allSatisfy { $0["source"] == "notification" }, "\(rows)")
        let acknowledged = rows.filter { $0["acknowledgedAt"] != .null }
        #expect(acknowledged.count == 1, "only the one serve answered: \(rows)")
        #expect(acknowledged.first?["acknowledgedAt"] == acknowledged.first?["receivedAt"])
    }
}
