import Foundation
import LifecycleCore
import LifecycleCrypto
import LifecycleReports
import TestSupport
import Testing

/// Reports already written keep verifying after the schema moved on: a manifest whose first report is of
/// schema 4 (no `provider` members, no `byProvider`, no CSV `provider` column), signed and logged as a
/// schema-4 writer did, then a schema-5 report appended by the real `lifecycle report generate`, and the
/// real `lifecycle report verify` over both.
@Suite("Deletion reports of an earlier schema", .serialized)
struct ReportSchemaUpgradeTests {
    /// `value` without the members schema 5 added (`provider`, `byProvider`), as schema 4 wrote it.
    static func schema4(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(
                    members: object.members.filter { $0.key != "provider" && $0.key != "byProvider" }.map {
                        ($0.key, $0.key == "schema" ? "accountlifecycle.deletion-report/4" : schema4($0.value))
                    }))
        case .array(let items): return .array(items.map(schema4))
        default: return value
        }
    }

    @Test("a schema-4 report and a schema-5 report in one manifest and log both verify")
    func schema4BesideSchema5() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: ["erasure": ["pollMilliseconds": 100]])
        try fixture.createAppDatabase("app.sqlite", subjects: [TestFixtures.subject])
        try await fixture.start()
        let deleted = try await fixture.post(
            fixture.notification(type: "account-delete", subject: TestFixtures.subject))
        #expect(deleted.status == 200, "\(deleted)")
        let first = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(first.status == 0, "\(first)")

        // Rewrite report 1 as a schema-4 writer wrote it: its JSON and CSV without the provider members, the
        // line re-signed over their hashes, the log rebuilt from the files.
        let app = fixture.directory.file("reports/shop")
        let manifestPath = app + "/" + ReportManifestLine.fileName
        let manifestText = try String(contentsOfFile: manifestPath, encoding: .utf8)
        var line = try #require(ReportManifestLine(parsing: Array(manifestText.utf8.dropLast())))
        #expect(line.schema == "accountlifecycle.deletion-report/5")
        var files: [(path: String, sha256: String)] = []
        for file in line.files {
            let path = app + "/" + file.path
            var bytes = Array(try #require(FileManager.default.contents(atPath: path)))
            if file.path.hasSuffix(".json") {
                bytes = Array((Self.schema4(try JSONValue.parse(bytes)).serialized(pretty: true) + "\n").utf8)
            } else if file.path.hasSuffix(".csv") {
                let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n").map { line in
                    String(line[..<(line.lastIndex(of: ",") ?? line.endIndex)])
                }
                #expect(lines.first?.hasSuffix(",holds") == true, "\(lines)")
                bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            files.append((file.path, SHA256.hexDigest(bytes)))
        }
        line.files = files
        line.schema = "accountlifecycle.deletion-report/4"
        let key = try ReportKeys.signingKey(path: fixture.directory.file("secrets/report-ed25519.pem"))
        try line.sign(with: key)
        try Data((line.text + "\n").utf8).write(to: URL(fileURLWithPath: manifestPath))
        for directory in [ReportLogEntries.logDirectory, ReportLogEntries.receiptDirectory] {
            try FileManager.default.removeItem(atPath: app + "/" + directory)
        }
        _ = try ReportLog(appDirectory: app, app: "shop", signingKey: key)
            .catchUp(manifest: [(line, Array(line.text.utf8))])
        let old = try JSONValue.parse(
            Array(try #require(FileManager.default.contents(atPath: app + "/" + files[1].path))))
        #expect(old["subjects"]?.arrayValue?.count == 1, "the Apple deletion is in the report")
        #expect(old["subjects"]?.arrayValue?.first?["provider"] == nil && old["summary"]?["byProvider"] == nil)
        #expect(
            try await fixture.lifecycle(["report", "verify", "--config", fixture.configurationFile]).status == 0,
            "the schema-4 report verifies on its own")

        let second = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(second.status == 0, "\(second)")
        let lines = try String(contentsOfFile: manifestPath, encoding: .utf8).split(separator: "\n").compactMap {
            ReportManifestLine(parsing: Array($0.utf8))
        }
        #expect(
            lines.map(\.schema) == ["accountlifecycle.deletion-report/4", "accountlifecycle.deletion-report/5"])
        let verified = try await fixture.lifecycle(["report", "verify", "--config", fixture.configurationFile])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("verified 2 reports"), "\(verified)")
        #expect(await fixture.stop() == [0])
    }
}
