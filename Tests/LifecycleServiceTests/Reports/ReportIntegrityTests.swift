import Foundation
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleReports

/// `lifecycle report verify`: fresh reports verify; any change to a file, a deleted line or reordered lines
/// makes it exit 1 and name the first broken item.
@Suite("Deletion-compliance report integrity")
struct ReportIntegrityTests {
    /// Three reports of the fixture written into a fresh directory, with the signing key's public half.
    struct Written {
        let directory: TemporaryDirectory
        var reports: String { directory.file("reports") }
        var appDirectory: String { reports + "/" + ReportFixture.app }
        var manifest: String { appDirectory + "/" + ReportManifestLine.fileName }
        var publicKey: String { directory.file("secrets/report-ed25519.pub.pem") }
        let files: [[String]]
    }

    static func writeThreeReports() throws -> Written {
        let directory = try TemporaryDirectory()
        let key = try ReportKeys.signingKey(path: directory.file("secrets/report-ed25519.pem"))
        let writer = ReportWriter(directory: directory.file("reports"), signingKey: key)
        var files: [[String]] = []
        for offset in 0..<3 {
            var dataset = ReportFixture.assembler.assemble(ReportFixture.inputs)
            dataset.generatedAt = dataset.generatedAt.adding(
                milliseconds: Int64(offset) * ReportPeriod.millisecondsPerDay)
            files.append(try writer.write(dataset).files)
        }
        return Written(directory: directory, files: files)
    }

    static func verify(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(arguments: ["report", "verify"] + arguments, io: captured.io)
        return (status, captured.output(), captured.errors())
    }

    static func manifestLines(_ written: Written) throws -> [String] {
        String(decoding: try #require(FileManager.default.contents(atPath: written.manifest)), as: UTF8.self)
            .split(separator: "\n").map(String.init)
    }

    static func writeManifest(_ written: Written, _ lines: [String]) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: written.manifest))
    }

    @Test("fresh reports verify, from the reports root and from the app's directory")
    func freshReportsVerify() async throws {
        let written = try Self.writeThreeReports()
        #expect(try Self.manifestLines(written).count == 3)
        for directory in [written.reports, written.appDirectory] {
            let result = await Self.verify([directory, "--public-key", written.publicKey])
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("verified 3 reports in 1 manifests"))
        }
        // Same-day reports do not overwrite each other, and the first line chains to 64 zeros.
        let first = try #require(ReportManifestLine(parsing: Array(try Self.manifestLines(written)[0].utf8)))
        #expect(first.previousLineSHA256 == String(repeating: "0", count: 64))
        #expect(first.files.map(\.path) == ["html", "json", "csv"].map { "2026/2026-11-12-deletion-compliance.\($0)" })
    }

    @Test("the signing key is created 0600 with its public key beside it, and the JSON carries the chain link")
    func signingKeyAndIntegrityBlock() throws {
        let written = try Self.writeThreeReports()
        let attributes = try FileManager.default.attributesOfItem(
            atPath: written.directory.file("secrets/report-ed25519.pem"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(FileManager.default.fileExists(atPath: written.publicKey))
        let lines = try Self.manifestLines(written)
        let json = try JSONValue.parse(try #require(FileManager.default.contents(atPath: written.files[1][1])))
        #expect(json["integrity"]?["sequence"] == .integer(2))
        #expect(json["integrity"]?["previousManifestLineSha256"]?.stringValue == SHA256.hexDigest(lines[0]))
    }

    @Test("changing one byte of any report file fails verification and names that file", arguments: 0..<3)
    func changedFile(fileIndex: Int) async throws {
        let written = try Self.writeThreeReports()
        let path = written.files[1][fileIndex]
        var bytes = Array(try #require(FileManager.default.contents(atPath: path)))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = await Self.verify([written.reports, "--public-key", written.publicKey])
        #expect(result.status == 1)
        #expect(result.err.contains("BROKEN \(path): SHA-256 differs from manifest line 2"), "\(result.err)")
    }

    @Test(
        "deleting or reordering manifest lines fails verification and names the first broken item",
        arguments: [
            ("delete the middle line", [0, 2], "line 2: holds report 3 where report 2 belongs"),
            ("delete the first line", [1, 2], "line 1: holds report 2 where report 1 belongs"),
            ("swap the first two lines", [1, 0, 2], "line 1: holds report 2 where report 1 belongs"),
            ("swap the last two lines", [0, 2, 1], "line 2: holds report 3 where report 2 belongs"),
        ])
    func tamperedManifest(name: String, keep: [Int], expected: String) async throws {
        let written = try Self.writeThreeReports()
        let lines = try Self.manifestLines(written)
        try Self.writeManifest(written, keep.map { lines[$0] })
        let result = await Self.verify([written.reports, "--public-key", written.publicKey])
        #expect(result.status == 1, "\(name)")
        #expect(result.err.contains("\(written.manifest) \(expected)"), "\(name): \(result.err)")
    }

    @Test("deleting the last manifest line leaves its files unlisted, which fails verification")
    func deletedLastLine() async throws {
        let written = try Self.writeThreeReports()
        try Self.writeManifest(written, Array(try Self.manifestLines(written).prefix(2)))
        let result = await Self.verify([written.reports, "--public-key", written.publicKey])
        #expect(result.status == 1)
        #expect(result.err.contains("2026-11-14-deletion-compliance.csv: not listed in the manifest"), "\(result.err)")
    }

    /// The verifier reads the app's directory itself (a receipt per deletion is there too): a report file is
    /// found at any depth, beside the receipts as well as in a year's directory.
    @Test(
        "a report file that no line lists is named wherever it lies under the app's directory",
        arguments: ["receipts/2026-11-30-deletion-compliance.json", "2026/old/2026-10-01-deletion-compliance.csv"])
    func strayReportFile(relative: String) async throws {
        let written = try Self.writeThreeReports()
        let path = written.appDirectory + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
        let result = await Self.verify([written.reports, "--public-key", written.publicKey])
        #expect(result.status == 1)
        #expect(result.err.contains("\(relative): not listed in the manifest"), "\(result.err)")
        try FileManager.default.removeItem(atPath: path)
        #expect(await Self.verify([written.reports, "--public-key", written.publicKey]).status == 0)
    }

    @Test("a line whose fields are renumbered to hide a deletion has a bad signature")
    func renumberedLine() async throws {
        let written = try Self.writeThreeReports()
        var lines = try Self.manifestLines(written)
        lines.remove(at: 1)
        lines[1] = lines[1].replacingOccurrences(of: "\"sequence\":3", with: "\"sequence\":2")
        try Self.writeManifest(written, lines)
        let result = await Self.verify([written.reports, "--public-key", written.publicKey])
        #expect(result.status == 1)
        #expect(result.err.contains("line 2: bad signature"), "\(result.err)")
    }

    @Test("a re-signed chain with another key is refused: the auditor's public key decides")
    func otherKey() async throws {
        let written = try Self.writeThreeReports()
        let other = try Ed25519PrivateKey.generate()
        let otherPath = written.directory.file("other.pub.pem")
        try Data(try other.publicKey.pem()).write(to: URL(fileURLWithPath: otherPath))
        let result = await Self.verify([written.reports, "--public-key", otherPath])
        #expect(result.status == 1)
        #expect(result.err.contains("line 1: signed with key"), "\(result.err)")
    }
}
