import Foundation
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// RISC's identifier events through the real `lifecycle serve`, observed through the admin API: an
/// `identifier-changed` makes the new identifier name the same account (the old one kept as an alias), and an
/// `identifier-recycled` makes the identifier name a new holder's account, never merged with the old one.
@Suite("Account aliases from RISC identifier events", .serialized)
struct SecurityEventAliasTests {
    typealias Endpoint = SecurityEventEndpointTests

    static func email(_ address: String) -> JSONValue { ["format": "email", "email": .string(address)] }

    static func key(_ address: String, generation: Int = 1) -> String {
        ProviderSubject(provider: "idp", format: "email", values: [address], generation: generation).accountKey
    }

    static func push(
        _ fake: FakeTransmitter, _ fixture: ServeFixture, _ type: String, _ address: String, body: JSONObject = [:],
        jti: String = FakeTransmitter.makeJTI(), secondsAgo: Int64
    ) async throws -> Int {
        // Each event of a test a few seconds after the one before, so none is stale or a same-time duplicate.
        let issuedAt = SystemClock().now().adding(seconds: -secondsAgo)
        let set = fake.set(
            event: Endpoint.risc + type, body: body, subject: email(address), audience: .string(Endpoint.audience),
            jti: jti, issuedAt: issuedAt)
        return try await fake.push(set, to: fixture.publicClient(), path: Endpoint.path, token: Endpoint.bearer).status
    }

    @Test(
        "identifier-changed: events naming the new identifier, or the old one, apply to the one account; a repeat adds nothing"
    )
    func changedIdentifierNamesTheSameAccount() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Endpoint.start(fake)
        #expect(try await Self.push(fake, fixture, "account-disabled", "old@example.com", secondsAgo: 60) == 202)
        let change = FakeTransmitter.makeJTI()
        for _ in 0..<2 {
            #expect(
                try await Self.push(
                    fake, fixture, "identifier-changed", "old@example.com", body: ["new-value": "New@Example.com"],
                    jti: change, secondsAgo: 50) == 202)
        }
        let old = Self.key("old@example.com")
        let new = Self.key("new@example.com")
        let account = try await Endpoint.account(fixture, old)
        let aliases = try #require(account.json?["aliases"]?.arrayValue, "\(account)")
        #expect(aliases.count == 1, "the repeated SET is a duplicate: \(aliases)")
        #expect(aliases.first?["identifier"]?.stringValue == new, "the new value, lowercased as e-mail subjects are")
        #expect(aliases.first?["account"]?.stringValue == old)
        #expect(aliases.first?["kind"] == "changed")
        #expect(aliases.first?["inForce"] == .bool(true))
        #expect(try await Endpoint.account(fixture, new).status == 404, "no second account for the new identifier")

        // Under the new identifier the transmitter re-enables, then purges: the one account follows both.
        #expect(try await Self.push(fake, fixture, "account-enabled", "new@example.com", secondsAgo: 40) == 202)
        #expect(try await Endpoint.account(fixture, old).json?["state"] == "linked")
        #expect(try await Self.push(fake, fixture, "account-purged", "new@example.com", secondsAgo: 30) == 202)
        let purged = try await Endpoint.account(fixture, old)
        #expect(purged.json?["state"] == "deleted", "\(purged)")
        #expect(purged.json?["erasureJobs"]?.arrayValue?.count == 1)
        #expect(try await Endpoint.account(fixture, new).status == 404)
        let history = purged.json?["history"]?.arrayValue ?? []
        #expect(history.count == 3, "disabled, enabled, purged: \(history)")
        await fake.stop()
    }

    @Test(
        "identifier-recycled: the next events naming the identifier make a new holder's account; the old holder's is untouched"
    )
    func recycledIdentifierStartsANewHolder() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Endpoint.start(fake)
        let address = "reused@example.com"
        #expect(try await Self.push(fake, fixture, "account-purged", address, secondsAgo: 60) == 202)
        #expect(try await Self.push(fake, fixture, "identifier-recycled", address, secondsAgo: 50) == 202)
        #expect(try await Self.push(fake, fixture, "account-disabled", address, secondsAgo: 40) == 202)

        let first = try await Endpoint.account(fixture, Self.key(address))
        #expect(first.json?["state"] == "deleted", "the old holder's account: \(first)")
        #expect(first.json?["history"]?.arrayValue?.count == 1, "the new holder's event is not the old holder's")
        let second = try await Endpoint.account(fixture, Self.key(address, generation: 2))
        #expect(second.json?["state"] == "consent-revoked", "the new holder's own account: \(second)")
        #expect(second.json?["provider"] == "idp")
        #expect(second.json?["erasureJobs"]?.arrayValue?.isEmpty == true, "nothing of the old holder's erasure")
        let aliases = first.json?["aliases"]?.arrayValue ?? []
        #expect(aliases.count == 1, "\(first)")
        #expect(aliases.first?["kind"] == "recycled")
        #expect(aliases.first?["account"]?.stringValue == Self.key(address, generation: 2))

        // Recycled again: a third holder, neither of the others.
        #expect(try await Self.push(fake, fixture, "identifier-recycled", address, secondsAgo: 30) == 202)
        #expect(try await Self.push(fake, fixture, "account-disabled", address, secondsAgo: 20) == 202)
        let third = try await Endpoint.account(fixture, Self.key(address, generation: 3))
        #expect(third.json?["state"] == "consent-revoked", "\(third)")
        let stillSecond = try await Endpoint.account(fixture, Self.key(address, generation: 2))
        #expect(stillSecond.json?["history"]?.arrayValue?.count == 1)

        // The reconcile finding names the holders the identifier was taken from.
        let run = try await fixture.lifecycle(["reconcile", "--config", fixture.configurationFile])
        #expect(run.status == 1, "\(run)")
        let findings = try await fixture.admin("GET", "/v1/findings?app=shop")
        let recycled = Set(
            (findings.json?["findings"]?.arrayValue ?? []).filter { $0["code"] == "identifier-recycled" }
                .compactMap { $0["subject"]?.stringValue })
        #expect(recycled == [Self.key(address), Self.key(address, generation: 2)], "\(findings)")
        await fake.stop()
    }

    @Test("an identifier-changed whose new-value is not a string is refused 400 invalid_request, and changes nothing")
    func malformedNewValue() async throws {
        let fake = try FakeTransmitter()
        let fixture = try await Endpoint.start(fake)
        let set = fake.set(
            event: Endpoint.risc + "identifier-changed", body: ["new-value": .integer(7)],
            subject: Self.email("someone@example.com"), audience: .string(Endpoint.audience))
        let answer = try await fake.push(set, to: fixture.publicClient(), path: Endpoint.path, token: Endpoint.bearer)
        #expect(answer.status == 400, "\(answer)")
        #expect(answer.json?["err"] == "invalid_request")
        #expect(try await Endpoint.account(fixture, Self.key("someone@example.com")).status == 404)
        await fake.stop()
    }
}
