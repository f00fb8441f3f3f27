import Foundation
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleCLI

/// Reports over real erasure jobs: a deletion erased by the job runner reads as completed, on time, verified,
/// with the categories the policy retains listed with their legal basis.
@Suite("Deletion-compliance reports over erasure jobs")
struct ReportErasureTests {
    @Test("an erased account deletion reads completed-with-exceptions, on time, verified, under its frozen policy")
    func erasedDeletionReport() async throws {
        let scenario = try ErasureScenario()
        let harness = scenario.harness
        let service = try await harness.start()
        let relay = "m4n8b2v6c1@privaterelay.appleid.com"
        let enabled = try await harness.post(
            harness.body(
                type: "email-enabled", subject: TestFixtures.subject,
                extra: ["email": .string(relay), "is_private_email": "true"]))
        #expect(enabled.status == 200)
        #expect(
            try await harness.post(harness.body(type: "account-delete", subject: TestFixtures.subject)).status == 200)
        try await service.erasureRunner.runOnce()
        await harness.stop()

        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: ["report", "generate", "--config", harness.configurationFile, "--json"], io: captured.io)
        #expect(status == 0, "\(captured.errors())")
        let files = ReportPipelineTests.reportFiles(harness.directory.file("reports"))
        for file in files {
            let text = String(decoding: try #require(FileManager.default.contents(atPath: file)), as: UTF8.self)
            #expect(!text.contains(TestFixtures.subject) && !text.contains(relay), "\(file) leaks an identifier")
        }
        let json = try #require(files.first { $0.hasSuffix(".json") })
        let report = try JSONValue.parse(try #require(FileManager.default.contents(atPath: json)))
        let row = try #require(report["subjects"]?.arrayValue?.first)
        #expect(row["eventType"] == "account-deleted")
        #expect(row["outcome"] == "completed-with-exceptions")
        #expect(row["onTime"] == .bool(true))
        #expect(row["verification"] == "verified")
        #expect(row["policy"]?.stringValue?.hasPrefix("default@") == true)
        let appDB = row["targets"]?.arrayValue?.first { $0["target"] == "app-db" && $0["rule"] == "rules[0]" }
        #expect(appDB?["status"] == "done")
        #expect(appDB?["evidence"]?["rowsAffected"] == .integer(3))
        #expect(appDB?["evidence"]?["verificationCount"] == .integer(0))
        let retained = try #require(row["retained"]?.arrayValue)
        #expect(
            !retained.isEmpty
                && retained.allSatisfy { $0["status"] == "retained" && $0["basis"]?.stringValue?.isEmpty == false })
        #expect(report["summary"]?["total"]?["completed"] == .integer(1))
        #expect(report["summary"]?["retainedItems"] == .integer(Int64(retained.count)))
    }
}
