import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleReports

/// `serve` finishes at start what a crash cut short in a report's write: here, the state a crash leaves after
/// a second report's manifest line was written and before its files took their names (the files as
/// `<name>.tmp`, the line outside the log). Without `serve`, `report verify` refuses it until the next report;
/// with it, verify passes within moments of the start and one `report.recovered` line says what was done.
@Suite("serve finishes a report a crash interrupted")
struct ReportRecoveryServeTests {
    @Test("a report whose files a crash kept from their names is placed and logged when serve starts")
    func recoversAtStart() async throws {
        let fixture = try await ServeFixture()
        let app = fixture.directory.file("reports/" + ServeFixture.appID)
        let first = try await fixture.lifecycle(["report", "generate"])
        try #require(first.status == 0, "\(first)")
        let saved = fixture.directory.file("saved-log")
        try FileManager.default.copyItem(atPath: app + "/log", toPath: saved)
        let second = try await fixture.lifecycle(["report", "generate"])
        try #require(second.status == 0, "\(second)")

        let manifest = String(
            decoding: try #require(FileManager.default.contents(atPath: app + "/manifest.jsonl")), as: UTF8.self)
        let lastLine = try #require(manifest.split(separator: "\n").last)
        let line = try #require(ReportManifestLine(parsing: Array(lastLine.utf8)))
        #expect(line.sequence == 2)
        for file in line.files { #expect(rename(app + "/" + file.path, app + "/" + file.path + ".tmp") == 0) }
        try FileManager.default.removeItem(atPath: app + "/log")
        try FileManager.default.moveItem(atPath: saved, toPath: app + "/log")
        let refused = try await fixture.lifecycle(["report", "verify"])
        #expect(refused.status == 1 && refused.errors.contains("not yet in place"), "\(refused)")

        try await fixture.start()
        let verified = await eventually(timeout: .seconds(30)) {
            (try? await fixture.lifecycle(["report", "verify"]))?.status == 0
        }
        #expect(verified, "report verify still refuses: \(fixture.log.suffix(2000))")
        #expect(fixture.log.contains("\"report.recovered\""), "\(fixture.log.suffix(2000))")
        #expect(fixture.log.contains("\"placedFiles\":3"), "\(fixture.log.suffix(2000))")
        for file in line.files { #expect(FileManager.default.fileExists(atPath: app + "/" + file.path)) }
        _ = await fixture.stop()
    }
}
