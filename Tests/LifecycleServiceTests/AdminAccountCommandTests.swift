import Foundation
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleEngine

/// `lifecycle account show|link|delete`, on the store and through the admin API: the same rules and the
/// same documents either way.
@Suite("lifecycle account")
struct AdminAccountCommandTests {
    static func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(arguments: arguments, io: captured.io)
        return (status, captured.output(), captured.errors())
    }

    /// The common arguments: which account, and either the configuration (store) or the admin URL.
    static func target(_ harness: ServiceHarness, url: String?) -> [String] {
        var words = ["--app", ServiceHarness.appID, "--sub", TestFixtures.subject]
        if let url {
            words += ["--url", url, "--token-file", harness.directory.file("secrets/admin-token")]
        } else {
            words += ["--config", harness.configurationFile]
        }
        return words
    }

    /// Runs link, show, delete, link again and checks what an operator relies on.
    static func exerciseLifecycle(_ harness: ServiceHarness, url: String?) async throws {
        let target = target(harness, url: url)
        let linked = await run(["account", "link"] + target)
        #expect(linked.status == 0, "\(linked.err)")
        #expect(linked.out.contains(": linked"))

        let shown = await run(["account", "show", "--json"] + target)
        #expect(shown.status == 0, "\(shown.err)")
        let document = try #require(JSONValue.parseIfValid(Array(shown.out.utf8)))
        #expect(document["state"] == "linked")
        #expect(document["history"]?.arrayValue?.map { $0["source"] } == ["admin"])
        #expect(document["history"]?.arrayValue?.first?["input"] == "linked")

        let deleted = await run(["account", "delete", "--event-time", "2025-07-15T09:36:30Z"] + target)
        #expect(deleted.status == 0, "\(deleted.err)")
        #expect(deleted.out.contains(": deleted"))
        #expect(deleted.out.contains("deleted 2025-07-15T09:36:30.000Z by in-app-deletion"))

        let refused = await run(["account", "link"] + target)
        #expect(refused.status == 1)
        #expect(refused.err.contains("account_deleted"))

        let text = await run(["account", "show"] + target)
        #expect(text.status == 0)
        #expect(text.out.contains("in-app-deletion  applied  linked -> deleted"))
        #expect(text.out.contains("linked  ignored (account deleted)  deleted -> deleted"))
    }

    @Test("through the store: link, show, delete, then link is refused with exit status 1")
    func throughStore() async throws {
        let harness = try ServiceHarness()
        try await Self.exerciseLifecycle(harness, url: nil)
        let context = try await ServiceContext.open(configuration: try harness.configuration, logSink: { _ in })
        let record = try await context.store.read {
            try $0.account(app: ServiceHarness.appID, subject: TestFixtures.subject)
        }
        await context.close()
        #expect(record?.state == .deleted)
    }

    @Test("through the admin API with --url: the same answers")
    func throughAdminAPI() async throws {
        let harness = try ServiceHarness(adminToken: AdminAPITests.token)
        let service = try await harness.start()
        let url = "http://127.0.0.1:\(try #require(service.adminPort))"
        try await Self.exerciseLifecycle(harness, url: url)
        let record = try await service.context.store.read {
            try $0.account(app: ServiceHarness.appID, subject: TestFixtures.subject)
        }
        #expect(record?.state == .deleted)
        await harness.stop()
    }

    @Test("with --url and a wrong token the command fails with the API's unauthorized code")
    func wrongToken() async throws {
        let harness = try ServiceHarness(adminToken: AdminAPITests.token)
        let service = try await harness.start()
        let tokenFile = harness.directory.file("wrong-token")
        try Data("not-the-token\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let result = await Self.run([
            "account", "show", "--app", "shop", "--sub", TestFixtures.subject, "--url",
            "http://127.0.0.1:\(try #require(service.adminPort))", "--token-file", tokenFile,
        ])
        #expect(result.status == 2)
        #expect(result.err.contains("unauthorized"))
        await harness.stop()
    }

    @Test("an unknown account is exit status 1; a missing --sub is a usage error")
    func refusals() async throws {
        let harness = try ServiceHarness()
        let unknown = await Self.run(["account", "show"] + Self.target(harness, url: nil))
        #expect(unknown.status == 1)
        #expect(unknown.err.contains("unknown_account"))
        let usage = await Self.run(["account", "show", "--app", "shop", "--config", harness.configurationFile])
        #expect(usage.status == 2)
        #expect(usage.err.contains("--sub"))
    }
}
