import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleEngine

@Suite("lifecycle policy and the erasure configuration")
struct ErasurePolicyCommandTests {
    static func rule(_ members: String) -> String {
        #"{"id":"p","version":1,"jurisdiction":"EU","timezone":"UTC","rules":[{"on":["account-deleted"],"#
            + members + "}]}"
    }

    /// Each broken file, the field its one line must name, and a word of the problem.
    static let broken: [(file: String, text: String, field: String, problem: String)] = [
        (
            "unknown-category.json", rule(#""erase":["profile","shoe-size"],"within":"P30D""#), "rules[0].erase[1]",
            "unknown category \"shoe-size\""
        ),
        ("negative.json", rule(#""erase":["profile"],"within":"-P5D""#), "rules[0].within", "is negative"),
        ("no-within.json", rule(#""erase":["profile"]"#), "rules[0].within", "no deadline"),
    ]

    @Test("policy validate names the file, field and fix of each broken policy and of an incomplete app mapping")
    func validateRejects() async throws {
        let directory = try TemporaryDirectory()
        let policies = directory.file("policies")
        try FileManager.default.copyItem(atPath: ErasureScenario.shippedPolicies, toPath: policies)
        for entry in Self.broken {
            try entry.text.write(toFile: policies + "/" + entry.file, atomically: true, encoding: .utf8)
        }
        var categories: JSONObject = [:]
        for category in DataCategory.allCases where category != .content {
            categories[category.canonicalName] = ["self"]
        }
        let config: JSONValue = [
            "apps": [["id": "shop", "clientIds": ["com.example.shop"], "categories": .object(categories)]]
        ]
        let configFile = directory.file("lifecycle.json")
        try config.serialized().write(toFile: configFile, atomically: true, encoding: .utf8)

        let (io, output, _) = CommandIO.capturing()
        let exit = await CommandLineInterface.run(arguments: ["policy", "validate", "--config", configFile], io: io)
        #expect(exit == 1)
        let lines = output().split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "one line per problem: \(lines)")
        for entry in Self.broken {
            let line = lines.first { $0.hasPrefix(policies + "/" + entry.file + ": ") }
            #expect(line?.contains(": \(entry.field): ") == true, "\(entry.file): \(lines)")
            #expect(line?.contains(entry.problem) == true)
            #expect(line?.contains("fix: ") == true)
        }
        let mapping = lines.first { $0.hasPrefix(configFile + ": apps[0].categories: ") }
        #expect(mapping?.contains("category \"content\" is erased by rules[0] of policy default@1") == true)
        #expect(mapping?.contains("map \"content\" to at least one of: self") == true)
    }

    @Test("policy validate accepts the shipped policies, and explain prints a policy with its dates")
    func validateAndExplainShipped() async throws {
        let (io, output, _) = CommandIO.capturing()
        let exit = await CommandLineInterface.run(
            arguments: ["policy", "validate", ErasureScenario.shippedPolicies], io: io)
        #expect(exit == 0)
        #expect(output().contains("3 policies valid (default, kr-pipa, us-ccpa)"))

        let explained = CommandIO.capturing()
        let explainExit = await CommandLineInterface.run(
            arguments: [
                "policy", "explain", "kr-pipa", "--dir", ErasureScenario.shippedPolicies, "--at",
                "2025-01-30T12:00:00Z",
            ], io: explained.io)
        #expect(explainExit == 0)
        #expect(explained.output().contains("Due by 2025-02-04 21:00 Asia/Seoul"))
        #expect(explained.output().contains("kr-pipa@2#"))
    }

    static func configuration(app extra: JSONObject, policies: String) throws(ConfigurationError)
        -> ServiceConfiguration
    {
        var app: JSONObject = ["id": "shop", "clientIds": ["com.example.shop"]]
        for member in extra { app[member.key] = member.value }
        return try ServiceConfiguration.parse(
            ["apps": [.object(app)], "policiesDirectory": .string(policies)], file: "lifecycle.json",
            baseDirectory: "/etc/lifecycle")
    }

    static var everyCategoryToSelf: JSONValue {
        var categories: JSONObject = [:]
        for category in DataCategory.allCases { categories[category.canonicalName] = ["self"] }
        return .object(categories)
    }

    static let mistakes: [(JSONObject, String)] = [
        (["policy": "gdpr", "categories": everyCategoryToSelf], "apps[0].policy: no policy with id \"gdpr\""),
        (
            ["categories": ["profile": ["self"]]],
            "apps[0].categories: category \"content\" is erased by rules[0] of policy default@1 but has no targets"
        ),
        (
            [
                "targets": ["db": ["type": "sqlite", "path": "app.sqlite", "statements": ["DELETE FROM users"]]],
                "categories": everyCategoryToSelf,
            ],
            "apps[0].targets.db.statements[0]: does not use the named parameter :sub"
        ),
        (
            ["targets": ["backend": ["type": "webhook"]], "categories": everyCategoryToSelf],
            "apps[0].targets.backend.type: a webhook target needs the app's webhook"
        ),
        (["targets": ["db": ["type": "ftp"]], "categories": everyCategoryToSelf], "apps[0].targets.db.type"),
    ]

    @Test(
        "an erasure mapping that does not validate stops start-up with one line naming the field", arguments: mistakes)
    func mappingMistakes(app: JSONObject, expected: String) throws {
        do {
            _ = try Self.configuration(app: app, policies: ErasureScenario.shippedPolicies)
            Issue.record("accepted a broken mapping")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("a complete mapping loads its policy; an app without one schedules nothing")
    func completeMapping() throws {
        let mapped = try Self.configuration(
            app: ["policy": "us-ccpa", "categories": Self.everyCategoryToSelf],
            policies: ErasureScenario.shippedPolicies)
        #expect(mapped.apps[0].erasure?.policyID == "us-ccpa")
        #expect(mapped.policies["us-ccpa"]?.timeZoneIdentifier == "America/Los_Angeles")
        let unmapped = try Self.configuration(app: [:], policies: "/nonexistent")
        #expect(unmapped.apps[0].erasure == nil)
        #expect(ErasureScheduler(configuration: unmapped).policyReference(app: "shop") == nil)
        let shipped = try ConfigurationTests.loadExample()
        #expect(shipped.apps.allSatisfy { $0.erasure != nil }, "the example shows a complete mapping")
    }

    @Test(
        "a policy without a rule for in-app-deletion: policy validate warns and exits 0, serve logs erasure.deletion_not_covered"
    )
    func uncoveredDeletionIsWarned() async throws {
        // The fixture's test policy erases on account-deleted only.
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))])
        let validate = try await fixture.lifecycle(["policy", "validate", "--config", fixture.configurationFile])
        #expect(validate.status == 0, "\(validate)")
        let warning = validate.output.split(separator: "\n").first { $0.hasPrefix("warning: ") }
        #expect(
            warning?.contains("apps[0].policy: policy \"immediate\" has no rule for in-app-deletion") == true,
            "\(validate)")
        #expect(warning?.contains("account-deleted") == false, "account-deleted has its rule")
        let process = try await fixture.start()
        func warnings() -> [Substring] {
            fixture.log.split(separator: "\n").filter { $0.contains("\"erasure.deletion_not_covered\"") }
        }
        #expect(warnings().count == 1, "\(fixture.log.prefix(3000))")
        let logged = warnings().first
        #expect(logged?.contains("\"triggers\":[\"in-app-deletion\"]") == true, "\(fixture.log.prefix(3000))")
        #expect(logged?.contains("\"policy\":\"immediate@1\"") == true)

        // With the rule, neither says a word: a reload puts the new policy in force without the warning (one
        // read from the configuration before it would log it again).
        try fixture.writePolicy(
            ServeFixture.immediatePolicy(version: 2).replacingOccurrences(
                of: #"["account-deleted"]"#, with: #"["account-deleted", "in-app-deletion"]"#))
        try await fixture.reload(process)
        #expect(await fixture.stop() == [0])
        #expect(fixture.log.contains("\"reload.configuration\""))
        #expect(warnings().count == 1, "warned again after the reload: \(warnings())")
        let covered = try await fixture.lifecycle(["policy", "validate", "--config", fixture.configurationFile])
        #expect(covered.status == 0 && !covered.output.contains("warning: "), "\(covered)")
    }
}
