import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleStore

/// Each deletion in the report states by when every backup copy is beyond use (by the configured retention
/// of each store it was erased from) and the master-key rotation bound of the service's own copies.
@Suite("Deletion reports state the remaining copies", .serialized)
struct ReportRemainingCopiesTests {
    let subject = TestFixtures.subject

    @Test(
        "after an erasure and a rotation, the report gives each store's backup end by its retention and names the master key rotated away"
    )
    func statements() async throws {
        let scenario = try ErasureScenario(maxAttempts: 3)
        let harness = scenario.harness
        var app = try #require(
            JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: harness.configurationFile)))?["apps"]?
                .arrayValue?.first?.objectValue)
        var targets = try #require(app["targets"]?.objectValue)
        var appDB = try #require(targets["app-db"]?.objectValue)
        appDB["backupRetentionDays"] = 30
        targets["app-db"] = .object(appDB)
        app["targets"] = .object(targets)
        try harness.merge([
            "apps": [.object(app)],
            "erasure": [
                "maxAttempts": 3, "baseDelayMilliseconds": 20, "maxDelayMilliseconds": 40, "runInServe": false,
                "backupRetentionDays": 35,
            ],
            "keys": ["rotateEveryDays": 90, "instanceWaitSeconds": 0],
        ])
        let service = try await harness.start()
        let relay = "k3b7x9q2m1@privaterelay.appleid.com"
        _ = try await harness.post(
            harness.body(
                type: "email-enabled", subject: subject, extra: ["email": .string(relay), "is_private_email": "true"]))
        _ = try await harness.post(harness.body(type: "account-delete", subject: subject))
        try await service.erasureRunner.runOnce()
        let master = try #require(service.context.vault.currentMasterKeyID)
        await harness.stop()

        // Before any rotation: the bound is the schedule.
        let first = try await Self.report(harness)
        let copies = try #require(first?["remainingCopies"])
        let backups = try #require(copies["backups"]?.arrayValue)
        #expect(backups.map { $0["store"]?.stringValue } == ["app-db", "self"])
        #expect(backups.map { $0["retentionDays"]?.integerValue } == [30, 35])
        let erased = try #require(backups[1]["erasedAt"]?.stringValue.flatMap(ISO8601Format.parse))
        #expect(
            backups[1]["beyondUseBy"]?.stringValue == erased.adding(milliseconds: 35 * 86_400_000).iso8601,
            "35 days after the service's erasure")
        #expect(copies["backupsBeyondUseBy"] == backups[1]["beyondUseBy"])
        #expect(copies["masterKey"]?["id"]?.stringValue == master)
        #expect(copies["masterKey"]?["retiredAt"] == .null)
        #expect(copies["masterKey"]?["rotationDueBy"]?.stringValue != nil, "keys.rotateEveryDays gives a date")
        #expect(copies["statement"]?.stringValue?.contains("is to be rotated away by") == true)
        let step = try #require(first?["targets"]?.arrayValue?.first { $0["target"] == "self" })
        #expect(step["evidence"]?["keysDestroyed"] == 1)
        #expect(
            step["evidence"]?["hygiene"]?.stringValue?.hasPrefix("secure_delete, wal_checkpoint(TRUNCATE) at") == true)

        // After a rotation: the key is named as rotated away, with the instant.
        let rotate = try await KeyRotationTests.run(["keys", "rotate", "--config", harness.configurationFile])
        #expect(rotate.status == 0, "\(rotate.errors)")
        let second = try await Self.report(harness)
        let retiredAt = second?["remainingCopies"]?["masterKey"]?["retiredAt"]?.stringValue
        #expect(retiredAt != nil)
        #expect(
            second?["remainingCopies"]?["statement"]?.stringValue?.contains("was rotated away on \(retiredAt ?? "?")")
                == true)
        let html = try Self.latest(harness, suffix: ".html")
        #expect(html.contains("Remaining copies") && html.contains("rotated away"))
    }

    /// Generates the reports and returns the JSON report's first deletion request.
    static func report(_ harness: ServiceHarness) async throws -> JSONValue? {
        let generated = try await KeyRotationTests.run(["report", "generate", "--config", harness.configurationFile])
        #expect(generated.status == 0, "\(generated.errors)")
        let json = try latest(harness, suffix: ".json")
        return JSONValue.parseIfValid(Array(json.utf8))?["subjects"]?.arrayValue?.first {
            $0["eventType"] == "account-deleted"
        }
    }

    /// The newest report file with `suffix`.
    static func latest(_ harness: ServiceHarness, suffix: String) throws -> String {
        let root = harness.directory.file("reports")
        let files = ReportPipelineTests.reportFiles(root).filter { $0.hasSuffix(suffix) }
        let newest = try #require(
            files.max {
                let a =
                    (try? FileManager.default.attributesOfItem(atPath: $0)[.modificationDate] as? Date) ?? .distantPast
                let b =
                    (try? FileManager.default.attributesOfItem(atPath: $1)[.modificationDate] as? Date) ?? .distantPast
                return (a, $0) < (b, $1)
            })
        return try String(contentsOfFile: newest, encoding: .utf8)
    }
}
