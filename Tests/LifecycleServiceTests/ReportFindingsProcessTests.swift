import Foundation
import LifecycleCore
import Testing

/// The report's findings section says what the last reconcile compared, as the run recorded it
/// (reports/README.md, `findings.recordsCompared`): nothing of an app without a records source was compared with
/// its own rows, and its empty findings must not read as records that agree. Through the real commands:
/// `lifecycle reconcile`, then `lifecycle report generate`.
@Suite("What the report says the reconcile compared")
struct ReportFindingsProcessTests {
    @Test("an app with a records source reports the records compared; one without says nothing was compared")
    func recordsComparedOrNot() async throws {
        let fixture = try await ServeFixture(apps: [
            ServeFixture.app(records: ["type": "jsonl", "path": "records.jsonl"]),
            ServeFixture.app(id: "blog", clientID: "com.example.blog"),
        ])
        // A run of serve first: with no heartbeat at all the whole look-back would be one notification gap.
        try await fixture.start()
        #expect(await fixture.stop() == [0])
        try (#"{"sub": "000201.app.0001"}"# + "\n" + #"{"sub": "000201.app.0002"}"# + "\n").write(
            toFile: fixture.directory.file("records.jsonl"), atomically: true, encoding: .utf8)
        let reconciled = try await fixture.lifecycle(["reconcile", "--config", fixture.configurationFile])
        #expect(reconciled.status == 0, "\(reconciled)")
        let generated = try await fixture.lifecycle(["report", "generate", "--config", fixture.configurationFile])
        #expect(generated.status == 0, "\(generated)")

        func findings(_ app: String) throws -> (json: JSONValue?, html: String) {
            let files = fixture.reportFiles().filter { $0.hasPrefix(app + "/") && !$0.contains("/log/") }
            let json = try files.first { $0.hasSuffix(".json") }.flatMap {
                FileManager.default.contents(atPath: fixture.directory.file("reports/" + $0))
            }.map { try JSONValue.parse($0)["findings"] }
            let html = try files.first { $0.hasSuffix(".html") }.map {
                try String(contentsOfFile: fixture.directory.file("reports/" + $0), encoding: .utf8)
            }
            return (json ?? nil, html ?? "")
        }
        let shop = try findings("shop")
        #expect(shop.json?["recordsCompared"] == .bool(true), "\(String(describing: shop.json))")
        #expect(shop.json?["recordsRead"] == .integer(2), "\(String(describing: shop.json))")
        #expect(shop.html.contains("It compared 2 records of the app"))
        let blog = try findings("blog")
        #expect(blog.json?["recordsCompared"] == .bool(false), "\(String(describing: blog.json))")
        #expect(blog.json?["items"]?.arrayValue?.isEmpty == true, "\(blog.json?["items"]?.serialized() ?? "")")
        #expect(blog.html.contains("This app has no records source"))
        #expect(!blog.html.contains("found nothing"))
    }
}
