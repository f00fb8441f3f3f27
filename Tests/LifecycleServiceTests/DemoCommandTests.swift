import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleDevTools
@testable import LifecycleReports

/// `lifecycle demo` end to end: it must run from a clean checkout and leave a report an auditor can verify.
@Suite("lifecycle demo")
struct DemoCommandTests {
    @Test(
        "the demo runs the whole loop, names the duplicate, the unknown type and the planted finding, and leaves a verifying report"
    )
    func wholeLoop() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.file("demo")
        let (io, output, errors) = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: ["demo", "--directory", directory, "--policies", ErasureScenario.shippedPolicies], io: io)
        let text = output()
        #expect(status == 0, "\(text)\n\(errors())")
        #expect(text.contains("POST account-delete for bob"))
        #expect(text.contains("(the same token again) -> 200 duplicate of #4, nothing changed"))
        #expect(text.contains("out of order) -> 200 accepted as #5, stale, state consent-revoked"))
        #expect(text.contains("ignored (unknown event type account-suspended)"))
        #expect(text.contains("1 erasure job cancelled because she came back"))
        #expect(text.contains("verification count 0; bob's rows left in the app: 0"))
        #expect(text.contains("unknown-to-service (info) for dave"))
        #expect(text.contains("account.sessions.terminate"), "session terminations reached the app's receiver")
        for user in DemoSampleApp.everyone {
            #expect(!text.contains(user.subject), "\(user.name)'s sub is never printed")
        }

        let reportLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("report: ") })
        let html = String(reportLine.dropFirst("report: ".count))
        #expect(html.hasPrefix(directory + "/reports/") && html.hasSuffix(".html"))
        #expect(FileManager.default.fileExists(atPath: html))
        let verified = try ReportVerifier.verify(
            directory: directory + "/reports",
            publicKey: try ReportKeys.publicKey(path: directory + "/secrets/report-ed25519.pub.pem"))
        #expect(verified.broken == nil)
        #expect(verified.verifiedReports == 1)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("unknown-to-service"), "the report lists the reconcile's open finding")

        // What a compliance officer reading the demo's report stumbled on: alice's revocation, whose token
        // erasure ran before she signed in again, reads cancelled with the re-link's steps and reason; the
        // unknown type is counted; the pseudonyms are the ones `jobs list` prints.
        let json = try JSONValue.parse(
            Array(
                try #require(
                    FileManager.default.contents(atPath: html.replacingOccurrences(of: ".html", with: ".json")))))
        let revoked = try #require(json["subjects"]?.arrayValue?.first { $0["eventType"] == "consent-revoked" })
        #expect(revoked["outcome"] == "cancelled" && revoked["response"] == "withdrawn", "\(revoked)")
        #expect(revoked["cancellation"]?["reason"]?.stringValue?.hasPrefix("relinked (linked at ") == true)
        #expect(revoked["cancellation"]?["steps"]?.arrayValue?.isEmpty == false)
        #expect(json["summary"]?["total"]?["cancelled"] == .integer(1))
        #expect(json["inputs"]?["unknownTypes"]?["account-suspended"] == .integer(1), "\(json["inputs"] ?? .null)")
        #expect(json["operationsPseudonymKeyId"] == json["pseudonymKeyId"])
        let listed = CommandIO.capturing()
        let jobsStatus = await CommandLineInterface.run(
            arguments: ["jobs", "list", "--json", "--config", directory + "/lifecycle.json"], io: listed.io)
        #expect(jobsStatus == 0, "\(listed.errors())")
        let accounts = Set(
            JSONValue.parseIfValid(Array(listed.output().utf8))?["jobs"]?.arrayValue?.compactMap {
                $0["account"]?.stringValue
            } ?? [])
        #expect(accounts.contains(revoked["subject"]?.stringValue ?? "-"), "\(accounts)")
    }

    /// README, "Demo": the command a newcomer runs, as the built executable: the numbered step lines README
    /// shows, then the report and the `report verify` command it prints, which must pass as printed.
    @Test("the lifecycle executable prints README's sixteen steps and a verify command that passes")
    func asAProcess() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.file("demo")
        let run = try await LifecycleProcess.run([
            "demo", "--directory", directory, "--policies", ErasureScenario.shippedPolicies,
        ])
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "lifecycle demo in \(directory)", "\(run.output)")
        let steps = lines.filter { $0.range(of: #"^ ?[0-9]+\. "#, options: .regularExpression) != nil }
        #expect(steps.count == 16, "\(run.output)")
        #expect(steps.last?.contains("verified 1 report(s)") == true, "\(run.output)")
        let verify = try #require(
            lines.last.flatMap { line in line.range(of: "verify again with: ").map { String(line[$0.upperBound...]) } },
            "\(run.output)")
        let words = String(verify.dropLast(verify.hasSuffix(")") ? 1 : 0)).split(separator: " ").map(String.init)
        #expect(words.prefix(3) == ["lifecycle", "report", "verify"], "\(words)")
        let again = try await LifecycleProcess.run(Array(words.dropFirst()))
        #expect(again.status == 0, "\(again)")
    }

    @Test("--json prints the steps, the finding codes and the report files as one document")
    func json() async throws {
        let temporary = try TemporaryDirectory()
        let (io, output, errors) = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: [
                "demo", "--json", "--directory", temporary.file("demo"), "--policies", ErasureScenario.shippedPolicies,
            ], io: io)
        #expect(status == 0, "\(errors())")
        let document = try #require(JSONValue.parseIfValid(Array(output().utf8)))
        #expect(document["findings"]?.arrayValue?.compactMap(\.stringValue) == ["unknown-to-service"])
        let answers = document["steps"]?.arrayValue?.compactMap { $0["answer"]?["status"]?.stringValue } ?? []
        #expect(answers == ["accepted", "accepted", "accepted", "accepted", "duplicate", "accepted", "ignored"])
        let report = try #require(document["report"]?.stringValue)
        #expect(FileManager.default.fileExists(atPath: report))
        #expect(document["verifiedReports"]?.integerValue == 1)
    }

    @Test("without a policies directory, or into a directory that is not empty, the demo refuses with one line")
    func refusals() async throws {
        let temporary = try TemporaryDirectory()
        let missing = CommandIO.capturing()
        let noPolicies = await CommandLineInterface.run(
            arguments: ["demo", "--directory", temporary.file("a"), "--policies", temporary.file("nowhere")],
            io: missing.io)
        #expect(noPolicies == 2)
        #expect(missing.errors().contains("no policies directory at"))
        #expect(missing.errors().split(separator: "\n").count == 1)

        try Data("keep me".utf8).write(to: URL(fileURLWithPath: temporary.file("occupied.txt")))
        let occupied = CommandIO.capturing()
        let notEmpty = await CommandLineInterface.run(
            arguments: ["demo", "--directory", temporary.path, "--policies", ErasureScenario.shippedPolicies],
            io: occupied.io)
        #expect(notEmpty == 2)
        #expect(occupied.errors().contains("is not empty"))
        #expect(
            try String(contentsOfFile: temporary.file("occupied.txt"), encoding: .utf8) == "keep me",
            "nothing in it was touched")
    }
}
