import Foundation
import LifecycleCore
import LifecycleCrypto
import LifecycleEngine
import LifecycleReports
import TestSupport
import Testing
import TransparencyLog

/// The reports' transparency log through the real `lifecycle` binary: `report generate` publishes every report
/// and deletion outcome as leaves of `reports/<app>/log/` with a receipt per deletion, `report verify` checks
/// them and exits 1 naming a changed tile, entry or receipt, a log a crash left behind, and a rewritten,
/// re-signed history that only the auditor's kept checkpoint can expose; and two verifiers nobody here wrote
/// accept the published log.
@Suite("Reports' transparency log through the lifecycle binary")
struct ReportLogTests {
    /// A dev-setup directory with two in-app deletions, reported once.
    struct Run {
        let directory: String
        var reports: String { directory + "/reports" }
        var app: String { reports + "/demo" }
        var log: String { app + "/log" }
        var receipts: String { app + "/receipts" }
        var configuration: ServiceConfiguration {
            get throws { try ServiceConfiguration.load(file: directory + "/lifecycle.json", environment: [:]) }
        }

        func lifecycle(_ arguments: [String]) async throws -> LifecycleProcess.Finished {
            try await LifecycleProcess.run(arguments + ["--config", "lifecycle.json"], directory: directory)
        }

        func generate() async throws {
            let generated = try await lifecycle(["report", "generate"])
            try #require(generated.status == 0, "\(generated)")
        }

        func verify(_ extra: [String] = []) async throws -> LifecycleProcess.Finished {
            try await lifecycle(["report", "verify"] + extra)
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        func read(_ path: String) throws -> [UInt8] { Array(try #require(FileManager.default.contents(atPath: path))) }
        func write(_ path: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

        func files(in directory: String, suffix: String = "") -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(suffix) }
                .sorted().map { directory + "/" + $0 }
        }

        /// The single file under `log/tile/<kind>/` of the current size (the logs here stay below 256 leaves).
        func partialTile(_ kind: String) throws -> String {
            try #require(files(in: log + "/tile/\(kind)/000.p").first)
        }
    }

    static func deletedRun(subjects: [String] = ["s1", "s2"]) async throws -> Run {
        let directory = try await DevSetupDirectory.make(prefix: "tlog")
        let run = Run(directory: directory)
        for subject in subjects {
            let deleted = try await run.lifecycle(["account", "delete", "--app", "demo", "--sub", subject])
            try #require(deleted.status == 0, "\(deleted)")
        }
        try await run.generate()
        return run
    }

    static func broken(_ finished: LifecycleProcess.Finished) -> String {
        finished.errorLines.filter { $0.contains("BROKEN") }.joined(separator: "\n")
    }

    @Test("generate publishes a checkpoint, tiles and receipts that verify; a second report only appends")
    func publishedLogVerifies() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let checkpoint = String(decoding: try run.read(run.log + "/checkpoint"), as: UTF8.self)
        // Two deletion-outcome leaves and one report leaf; the origin is the note's first line.
        #expect(checkpoint.hasPrefix("accountlifecycle/deletion-reports/demo\n3\n"), "\(checkpoint)")
        #expect(checkpoint.contains("\n\n— accountlifecycle/deletion-reports/demo "))
        #expect(run.files(in: run.receipts, suffix: ".tlog-proof").count == 2)
        let first = try await run.verify()
        #expect(first.status == 0, "\(first)")
        #expect(first.output.contains("verified 1 reports in 1 manifests"), "\(first.output)")
        #expect(
            first.output.contains("log \(run.log): 3 leaves, 2 receipts; key accountlifecycle/deletion-reports/demo+"))

        try await run.generate()
        let second = try await run.verify(["--json"])
        #expect(second.status == 0, "\(second)")
        let document = try JSONValue.parse(second.output)
        let log = document["logs"]?.arrayValue?.first
        #expect(log?["treeSize"] == .integer(6))
        #expect(log?["receipts"] == .integer(2))
        // Each receipt now proves the second report's outcome of its deletion.
        for receipt in run.files(in: run.receipts, suffix: ".tlog-proof") {
            let proof = try LogProof(parsing: try run.read(receipt))
            #expect(proof.index >= 3 && proof.index < 5, "\(receipt)")
            #expect(String(decoding: try #require(proof.extra), as: UTF8.self).contains("\"report\":2"))
        }
    }

    @Test("a changed tile, entry or receipt makes verify exit 1 naming it", arguments: ["tile", "entry", "receipt"])
    func tampering(target: String) async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let path: String
        switch target {
        case "tile":
            path = try run.partialTile("0")
            var bytes = try run.read(path)
            bytes[40] ^= 0x01
            try run.write(path, bytes)
        case "entry":
            path = try run.partialTile("entries")
            var bytes = try run.read(path)
            // Inside the last entry's JSON text: `"kind":"report"` becomes `"kind":"rfport"`.
            let text = String(decoding: bytes, as: UTF8.self)
            let range = try #require(text.range(of: "\"report\"", options: .backwards))
            bytes[text.utf8.distance(from: text.utf8.startIndex, to: range.lowerBound) + 2] = UInt8(ascii: "f")
            try run.write(path, bytes)
        default:
            // The receipt's entry claims another outcome; its proof is left as the log gave it.
            path = try #require(run.files(in: run.receipts, suffix: ".tlog-proof").first)
            let proof = try LogProof(parsing: try run.read(path))
            let entry = String(decoding: try #require(proof.extra), as: UTF8.self)
            let claimed = entry.replacingOccurrences(of: "\"outcome\":\"", with: "\"outcome\":\"not-")
            #expect(claimed != entry)
            var forged = proof
            forged.extra = Array(claimed.utf8)
            try run.write(path, forged.bytes)
        }
        let verified = try await run.verify()
        #expect(verified.status == 1, "\(verified)")
        let line = Self.broken(verified)
        #expect(line.split(separator: "\n").count == 1, "\(verified.errors)")
        let named = target == "receipt" ? path : String(path.dropFirst(run.log.count + 1))
        #expect(line.contains(named), "\(target): \(line)")
    }

    /// Each receipt must exist and be the one its file name says: a deleted receipt and a receipt copied over
    /// another deletion's are both named, with what is wrong.
    @Test(
        "a missing receipt, or one under another deletion's name, makes verify exit 1 naming it",
        arguments: ["missing", "misnamed"])
    func receiptPerDeletion(change: String) async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let receipts = run.files(in: run.receipts, suffix: ".tlog-proof")
        try #require(receipts.count == 2)
        let expected: String
        if change == "missing" {
            try FileManager.default.removeItem(atPath: receipts[0])
            expected = "has no receipt"
        } else {
            try run.write(receipts[1], try run.read(receipts[0]))
            expected = "its entry is not the deletion outcome its file name says"
        }
        let verified = try await run.verify()
        #expect(verified.status == 1, "\(verified)")
        let line = Self.broken(verified)
        #expect(line.contains(change == "missing" ? receipts[0] : receipts[1]), "\(line)")
        #expect(line.contains(expected), "\(line)")
    }

    /// Receipts are read in the directory's order, not listed and sorted first: of several broken ones, the
    /// first by name is still the one named, whatever order the directory gives.
    @Test("of several broken receipts, verify names the first by name")
    func firstBrokenReceiptByName() async throws {
        let run = try await Self.deletedRun(subjects: ["s1", "s2", "s3", "s4"])
        defer { run.remove() }
        let receipts = run.files(in: run.receipts, suffix: ".tlog-proof")
        try #require(receipts.count == 4)
        for receipt in receipts.dropFirst() { try run.write(receipt, Array("not a proof\n".utf8)) }
        let last = try await run.verify()
        #expect(last.status == 1, "\(last)")
        #expect(Self.broken(last).contains(receipts[1]), "\(last)")
        try run.write(receipts[0], [])
        let first = try await run.verify()
        #expect(Self.broken(first).contains(receipts[0]), "\(first)")
    }

    @Test("appending a report's leaves again adds nothing: the log's last leaf says which lines it holds")
    func appendIsIdempotent() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        try await run.generate()
        let checkpoint = try run.read(run.log + "/checkpoint")
        var manifest: [(line: ReportManifestLine, text: [UInt8])] = []
        for text in String(decoding: try run.read(run.app + "/manifest.jsonl"), as: UTF8.self).split(separator: "\n") {
            manifest.append((try #require(ReportManifestLine(parsing: Array(text.utf8))), Array(text.utf8)))
        }
        let key = try ReportKeys.signingKey(path: try run.configuration.reports.signingKeyFile)
        // The step a retried write runs: the log already holds both lines.
        let again = try ReportLog(appDirectory: run.app, app: "demo", signingKey: key).catchUp(manifest: manifest)
        #expect(again.appendedLines.isEmpty)
        #expect(again.treeSize == 6)
        #expect(try run.read(run.log + "/checkpoint") == checkpoint)
        let verified = try await run.verify()
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("6 leaves, 2 receipts"), "\(verified.output)")
    }

    @Test("once a report's receipts are all written, the next generate does not read that report back")
    func completeReceiptsAreNotRedone() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let marker = run.app + "/" + ReportLogEntries.receiptedMarkerPath
        #expect(try run.read(marker) == Array("3\n".utf8))
        // The first report's JSON out of the way: a generate that still read it back (to rewrite its receipts)
        // would fail naming it.
        func json(line: Int) throws -> String {
            let manifest = String(decoding: try run.read(run.app + "/manifest.jsonl"), as: UTF8.self)
            let parsed = try #require(
                ReportManifestLine(parsing: Array(manifest.split(separator: "\n")[line - 1].utf8)))
            return run.app + "/" + (try #require(parsed.files.first { $0.path.hasSuffix(".json") })).path
        }
        try FileManager.default.moveItem(atPath: try json(line: 1), toPath: try json(line: 1) + ".away")
        try await run.generate()
        #expect(try run.read(marker) == Array("6\n".utf8))
        try FileManager.default.moveItem(atPath: try json(line: 1) + ".away", toPath: try json(line: 1))

        // Without the marker (a log written before it, or receipts a crash cut short), the line before the new
        // one is read back and its receipts rewritten: with its JSON away, that fails naming it.
        try FileManager.default.removeItem(atPath: marker)
        try FileManager.default.moveItem(atPath: try json(line: 2), toPath: try json(line: 2) + ".away")
        let refused = try await run.lifecycle(["report", "generate"])
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.errors.contains("the JSON report of manifest line 2 is missing"), "\(refused)")
        // Put back, the next generate logs the line the refused one wrote, and everything verifies.
        try FileManager.default.moveItem(atPath: try json(line: 2) + ".away", toPath: try json(line: 2))
        try await run.generate()
        #expect(try await run.verify().status == 0)
    }

    /// The three files are rendered at once: when one cannot be written, the others are removed again, so no
    /// file lies in the app's directory without a manifest line, and the report is not logged. "in the way" is a
    /// directory where the CSV's temporary file goes (it cannot be opened); "disk full" makes the JSON's
    /// temporary file a link to `/dev/full`, so it opens and every write fails with `ENOSPC`, as on a full disk:
    /// the failing file's own temporary file goes too.
    @Test(
        "a report file that cannot be written fails the generate and leaves no file behind",
        arguments: ["in the way", "disk full"])
    func unwritableReportFile(cause: String) async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let manifest = try run.read(run.app + "/manifest.jsonl")
        let html = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: run.app).first {
                $0.hasSuffix("-deletion-compliance.html")
            })
        // The next report of the day is `-2`.
        let second = run.app + "/" + html.dropLast(".html".count) + "-2"
        let failing = second + (cause == "in the way" ? ".csv" : ".json")
        if cause == "in the way" {
            try FileManager.default.createDirectory(atPath: failing + ".tmp", withIntermediateDirectories: false)
        } else {
            try FileManager.default.createSymbolicLink(atPath: failing + ".tmp", withDestinationPath: "/dev/full")
        }
        let refused = try await run.lifecycle(["report", "generate"])
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.errors.contains(failing + ": cannot write the report file: "), "\(refused)")
        if cause == "disk full" { #expect(refused.errors.contains("No space left on device"), "\(refused)") }
        for ext in ["html", "json", "csv"] {
            #expect(!FileManager.default.fileExists(atPath: second + "." + ext))
            if cause == "disk full" {
                // `lstat`, not `fileExists`: the link itself must be gone, not only a file it points to.
                var status = stat()
                #expect(lstat(second + "." + ext + ".tmp", &status) != 0, "\(second).\(ext).tmp left behind")
            }
        }
        #expect(try run.read(run.app + "/manifest.jsonl") == manifest)
        let verified = try await run.verify()
        #expect(verified.status == 0, "\(verified)")
    }

    /// A render that a crash cut short leaves its temporary file, which for a large month is gigabytes; the next
    /// report may be of another day and never reuse the name. The next generate removes it (under the manifest
    /// lock, so no other writer's), and nothing else in the year directory.
    @Test("a temporary report file a crash left behind is removed by the next generate")
    func crashLeftTemporaryFile() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let html = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: run.app).first {
                $0.hasSuffix("-deletion-compliance.html")
            })
        let year = run.app + "/" + (html.split(separator: "/").first.map(String.init) ?? "")
        let stale = year + "/2020-01-01-deletion-compliance.json.tmp"
        let unrelated = year + "/notes.tmp"
        try run.write(stale, Array(repeating: UInt8(ascii: "x"), count: 4096))
        try run.write(unrelated, Array("keep\n".utf8))
        try await run.generate()
        #expect(!FileManager.default.fileExists(atPath: stale), "the crash's temporary file is still there")
        #expect(FileManager.default.fileExists(atPath: unrelated), "a file the writer never makes was removed")
        let verified = try await run.verify()
        #expect(verified.status == 0, "\(verified)")
    }

    /// The state a crash leaves after a second report's manifest line was written and before its files took
    /// their names: the line in the manifest, its files as `<name>.tmp`, the log and receipts as after the
    /// first report. Returns the second line.
    static func crashedBeforeRenames(_ run: Run) async throws -> ReportManifestLine {
        let saved = run.directory + "/saved"
        try FileManager.default.createDirectory(atPath: saved, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: run.log, toPath: saved + "/log")
        try FileManager.default.copyItem(atPath: run.receipts, toPath: saved + "/receipts")
        try await run.generate()
        let manifest = String(decoding: try run.read(run.app + "/manifest.jsonl"), as: UTF8.self)
        let lastLine = try #require(manifest.split(separator: "\n").last)
        let second = try #require(ReportManifestLine(parsing: Array(lastLine.utf8)))
        #expect(second.sequence == 2)
        for file in second.files {
            let path = run.app + "/" + file.path
            #expect(rename(path, path + ".tmp") == 0)
        }
        for directory in [run.log, run.receipts] { try FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: saved + "/log", toPath: run.log)
        try FileManager.default.copyItem(atPath: saved + "/receipts", toPath: run.receipts)
        try FileManager.default.removeItem(atPath: saved)
        return second
    }

    /// A crash after a report's manifest line was written and before its files took their names (they are
    /// renamed only once the line is durable, so a report that fails earlier leaves no file under a report's
    /// name) leaves the line naming files that exist only as `<name>.tmp`, and the line outside the log.
    /// Verify says the file is not yet in place until the next generate, which gives them their names (their
    /// SHA-256 is the line's), logs the line, then writes its own report.
    @Test("files a crash kept from their names after their manifest line was written are placed by the next generate")
    func crashBeforeRenames() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let second = try await Self.crashedBeforeRenames(run)

        let refused = try await run.verify()
        #expect(refused.status == 1, "\(refused)")
        let broken = Self.broken(refused)
        #expect(broken.contains(second.files[0].path) && broken.contains("not yet in place"), "\(refused)")

        try await run.generate()
        for file in second.files {
            let path = run.app + "/" + file.path
            #expect(
                FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: path + ".tmp"))
        }
        let verified = try await run.verify()
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("verified 3 reports in 1 manifests"), "\(verified.output)")
    }

    /// The temporary file is the only copy of a file a signed line names: one that is not that file stops the
    /// write, which changes nothing (no line, no file, the temporary file kept), and verify says why.
    @Test("a temporary file that is not the one its line lists stops the next generate, changing nothing")
    func crashLeftDifferentFile() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let second = try await Self.crashedBeforeRenames(run)
        let json = run.app + "/" + second.files[1].path + ".tmp"
        var bytes = try run.read(json)
        bytes[bytes.count / 2] ^= 1
        try run.write(json, bytes)
        let manifest = try run.read(run.app + "/manifest.jsonl")
        let before = try FileManager.default.subpathsOfDirectory(atPath: run.app).sorted()

        let refused = try await run.lifecycle(["report", "generate"])
        #expect(refused.status != 0, "\(refused)")
        #expect(
            refused.errors.contains("\(second.files[1].path).tmp: not the file manifest line 2 lists"), "\(refused)")
        #expect(try run.read(run.app + "/manifest.jsonl") == manifest)
        let after = try FileManager.default.subpathsOfDirectory(atPath: run.app).sorted()
        #expect(after == before, "added \(Set(after).subtracting(before)), removed \(Set(before).subtracting(after))")
        #expect(try run.read(json) == bytes)
    }

    /// An append a crash tore (the line's one `write` cut short, so no newline) is not a line: the next
    /// generate removes it and chains to the line before. A whole line that is not one stops the generate
    /// before anything changes.
    @Test("a torn last line is removed by the next generate; a whole line that is not one stops it first")
    func tornLastLine() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let path = run.app + "/manifest.jsonl"
        let whole = try run.read(path)
        try run.write(path, whole + Array(whole.prefix(whole.count / 2)))
        try await run.generate()
        let verified = try await run.verify()
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("verified 2 reports in 1 manifests"), "\(verified.output)")

        let two = try run.read(path)
        let files = try FileManager.default.subpathsOfDirectory(atPath: run.app).sorted()
        try run.write(path, two + Array("not a manifest line\n".utf8))
        let refused = try await run.lifecycle(["report", "generate"])
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.errors.contains("line 3: not a manifest line"), "\(refused)")
        #expect(try run.read(path) == two + Array("not a manifest line\n".utf8))
        #expect(try FileManager.default.subpathsOfDirectory(atPath: run.app).sorted() == files)
    }

    /// A name a line lists stays that line's even when its files are gone: the next report of the day takes
    /// `-2`, so verify keeps naming the missing file rather than another report's bytes under its name.
    @Test("a report's name stays taken by its line when its files are gone")
    func listedNameNotReused() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let manifest = String(decoding: try run.read(run.app + "/manifest.jsonl"), as: UTF8.self)
        let firstLine = try #require(manifest.split(separator: "\n").first)
        let first = try #require(ReportManifestLine(parsing: Array(firstLine.utf8)))
        for file in first.files { try FileManager.default.removeItem(atPath: run.app + "/" + file.path) }
        try await run.generate()
        let lines = String(decoding: try run.read(run.app + "/manifest.jsonl"), as: UTF8.self).split(separator: "\n")
        let lastLine = try #require(lines.last)
        let second = try #require(ReportManifestLine(parsing: Array(lastLine.utf8)))
        #expect(second.sequence == 2)
        #expect(Set(second.files.map(\.path)).isDisjoint(with: first.files.map(\.path)), "\(second.files)")
        let refused = try await run.verify()
        #expect(Self.broken(refused).contains("missing (listed on manifest line 1)"), "\(refused)")
    }

    /// Receipts are written in place, not through a temporary file and a rename: a crash can leave one short or
    /// empty. Verify names it, and the next generate (the marker names a smaller size) writes it whole.
    @Test(
        "a receipt a crash left short or empty is refused by verify and rewritten by the next generate",
        arguments: ["short", "empty"])
    func cutReceipt(cut: String) async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let receipts = run.files(in: run.receipts, suffix: ".tlog-proof")
        try #require(receipts.count == 2)
        let whole = try run.read(receipts[0])
        try run.write(receipts[0], cut == "empty" ? [] : Array(whole.prefix(whole.count / 2)))
        try run.write(run.app + "/" + ReportLogEntries.receiptedMarkerPath, Array("0\n".utf8))
        let refused = try await run.verify()
        #expect(refused.status == 1, "\(refused)")
        #expect(Self.broken(refused).contains(receipts[0]), "\(refused)")
        try await run.generate()
        let verified = try await run.verify()
        #expect(verified.status == 0, "\(verified)")
        #expect(try LogProof(parsing: try run.read(receipts[0])).index >= 3)
    }

    /// The marker names the size up to which every receipt was written; a catch-up rewrites the receipts of
    /// every line after it, not only the last one's: after crashes in two generates in a row, a deletion only
    /// an older line holds still gets its receipt.
    @Test("receipts a crash left unwritten lines ago are written by the next generate, back to the marker")
    func receiptsBackToTheMarker() async throws {
        let directory = try await DevSetupDirectory.make(prefix: "tlog")
        let run = Run(directory: directory)
        defer { run.remove() }
        // Line 1: a month with no deletion (one report leaf). Line 2: two deletions. Line 3: none again.
        let empty = ["report", "generate", "--from", "2020-01-01", "--to", "2020-02-01"]
        #expect(try await run.lifecycle(empty).status == 0)
        for subject in ["s1", "s2"] {
            #expect(try await run.lifecycle(["account", "delete", "--app", "demo", "--sub", subject]).status == 0)
        }
        try await run.generate()
        #expect(try await run.lifecycle(empty).status == 0)
        let marker = run.app + "/" + ReportLogEntries.receiptedMarkerPath
        #expect(try run.read(marker) == Array("5\n".utf8))

        // As if line 2's receipts were cut short, and the generate of line 3 crashed before its own ended.
        let receipts = run.files(in: run.receipts, suffix: ".tlog-proof")
        try #require(receipts.count == 2)
        try run.write(receipts[0], [])
        try FileManager.default.removeItem(atPath: receipts[1])
        try run.write(marker, Array("1\n".utf8))
        #expect(try await run.verify().status == 1)

        // Line 4 holds no deletion either: only going back to line 2 rewrites the two receipts.
        #expect(try await run.lifecycle(empty).status == 0)
        #expect(try run.read(marker) == Array("6\n".utf8))
        let verified = try await run.verify()
        #expect(verified.status == 0, "\(verified)")
        #expect(run.files(in: run.receipts, suffix: ".tlog-proof") == receipts)
    }

    /// A report's receipts are written by several threads, each a contiguous run of its rows. A deletion that
    /// one report holds twice, at its first row and its last (so in different runs), gets the later row's
    /// receipt, as one thread walking back from the end would leave it.
    @Test("a deletion a report holds twice gets the receipt of its later leaf, whichever thread wrote it")
    func twiceInOneReport() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let firstText = try #require(
            String(decoding: try run.read(run.app + "/manifest.jsonl"), as: UTF8.self).split(separator: "\n").first)
        let first = try #require(ReportManifestLine(parsing: Array(firstText.utf8)))
        var second = first
        second.sequence = 2
        var rows = Array(ReportFixture.dataset.subjects)
        try #require(rows.count >= 3)
        var again = rows[0]
        again.completedAt = ReportFixture.at("2026-11-30T00:00:00Z")
        again.outcome = .completed
        rows.append(again)
        var dataset = ReportFixture.dataset
        dataset.subjects = ReportRows(rows)
        let entries = ReportLogEntries(line: second, lineText: Array(second.text.utf8), dataset: dataset)
        try #require(entries.outcomes[0].key == entries.outcomes[rows.count - 1].key)
        try #require(entries.outcomes[0].entry != entries.outcomes[rows.count - 1].entry)

        let key = try ReportKeys.signingKey(path: try run.configuration.reports.signingKeyFile)
        let caught = try ReportLog(appDirectory: run.app, app: "demo", signingKey: key).catchUp(
            manifest: [(first, Array(firstText.utf8)), (second, Array(second.text.utf8))], known: [2: entries])
        #expect(caught.appendedLines == [2])
        #expect(caught.treeSize == UInt64(3 + rows.count + 1))
        // One per distinct deletion of the new report (the first report's receipts were complete).
        #expect(caught.receiptsWritten == rows.count - 1)
        let receipt = try LogProof(parsing: try run.read(run.app + "/" + entries.outcomes[0].key.receiptPath))
        #expect(receipt.extra == entries.outcomes[rows.count - 1].entry)
        #expect(receipt.index == UInt64(3 + rows.count - 1))
    }

    @Test("a report's rows are cut into contiguous runs, one per thread, none empty", arguments: [0, 1, 2, 3, 7, 100])
    func receiptRuns(count: Int) {
        for workers in 1...4 {
            let runs = ReportLog.runs(count: count, workers: workers)
            #expect(runs.flatMap { Array($0) } == Array(0..<count))
            #expect(runs.allSatisfy { !$0.isEmpty })
            #expect(runs.count == min(workers, count))
            #expect((runs.map(\.count).max() ?? 0) - (runs.map(\.count).min() ?? 0) <= 1)
        }
    }

    @Test("a crash between the manifest line and the log is refused by verify and repaired by the next generate")
    func crashBetweenReportAndLog() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let checkpoint = try run.read(run.log + "/checkpoint")
        try await run.generate()
        // What a crash after the new tiles but before the new checkpoint leaves behind.
        try run.write(run.log + "/checkpoint", checkpoint)
        let refused = try await run.verify()
        #expect(refused.status == 1, "\(refused)")
        #expect(Self.broken(refused).contains("manifest.jsonl line 2: not in the transparency log"), "\(refused)")

        let repaired = try await run.lifecycle(["report", "generate", "--json"])
        #expect(repaired.status == 0, "\(repaired)")
        let written = try JSONValue.parse(repaired.output)
        #expect(written.arrayValue?.first?["loggedLines"] == [.integer(2), .integer(3)])
        // Verify matches the log leaf for leaf against the three reports: nothing is missing or there twice.
        let verified = try await run.verify()
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("9 leaves, 2 receipts"), "\(verified.output)")

        // A crash after the checkpoint but before the receipts: named, then rewritten by the next generate. The
        // marker of written receipts still names the size before that append (6).
        #expect(try run.read(run.app + "/" + ReportLogEntries.receiptedMarkerPath) == Array("9\n".utf8))
        for receipt in run.files(in: run.receipts, suffix: ".tlog-proof") {
            try FileManager.default.removeItem(atPath: receipt)
        }
        try run.write(run.app + "/" + ReportLogEntries.receiptedMarkerPath, Array("6\n".utf8))
        let missing = try await run.verify()
        #expect(missing.status == 1)
        #expect(Self.broken(missing).contains("missing: deletion outcome leaf"), "\(missing)")
        try await run.generate()
        #expect(try await run.verify().status == 0)
    }

    @Test("a history rewritten and re-signed with the real key passes alone but not against the kept checkpoint")
    func rewrittenHistory() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let kept = run.directory + "/kept-checkpoint"
        try run.write(kept, try run.read(run.log + "/checkpoint"))
        try await run.generate()
        let extended = try await run.verify(["--checkpoint", kept])
        #expect(extended.status == 0, "\(extended)")
        #expect(extended.output.contains("consistent with --checkpoint"), "\(extended.output)")

        // The operator, holding the signing key, changes report 1's first outcome, re-signs both manifest
        // lines, and rebuilds the log and receipts from scratch: every signature and hash is in order.
        let key = try ReportKeys.signingKey(path: try run.configuration.reports.signingKeyFile)
        let manifestPath = run.app + "/manifest.jsonl"
        var lines: [ReportManifestLine] = []
        for text in String(decoding: try run.read(manifestPath), as: UTF8.self).split(separator: "\n") {
            lines.append(try #require(ReportManifestLine(parsing: Array(text.utf8))))
        }
        let jsonPath = run.app + "/" + lines[0].files[1].path
        let json = String(decoding: try run.read(jsonPath), as: UTF8.self)
        let outcome = try #require(json.range(of: #""outcome": *""#, options: .regularExpression))
        let rewritten = Array(json.replacingCharacters(in: outcome, with: "\"outcome\": \"not-").utf8)
        #expect(rewritten != Array(json.utf8))
        try run.write(jsonPath, rewritten)
        lines[0].files[1].sha256 = SHA256.hexDigest(rewritten)
        try lines[0].sign(with: key)
        lines[1].previousLineSHA256 = ReportManifestLine.chainHash(Array(lines[0].text.utf8))
        try lines[1].sign(with: key)
        try run.write(manifestPath, Array(lines.map { $0.text + "\n" }.joined().utf8))
        try FileManager.default.removeItem(atPath: run.log)
        try FileManager.default.removeItem(atPath: run.receipts)
        _ = try ReportLog(appDirectory: run.app, app: "demo", signingKey: key).catchUp(
            manifest: lines.map { ($0, Array($0.text.utf8)) })

        #expect(try await run.verify().status == 0, "the rewrite is self-consistent; only a kept checkpoint tells")
        let refused = try await run.verify(["--checkpoint", kept])
        #expect(refused.status == 1, "\(refused)")
        let line = Self.broken(refused)
        #expect(line.contains("BROKEN \(kept): rewritten history"), "\(refused)")
    }

    @Test("a log rolled back behind the auditor's kept checkpoint is rewritten history")
    func rolledBack() async throws {
        let run = try await Self.deletedRun()
        defer { run.remove() }
        let copy = run.directory + "/reports-at-1"
        try FileManager.default.copyItem(atPath: run.reports, toPath: copy)
        try await run.generate()
        let kept = run.directory + "/kept-checkpoint"
        try run.write(kept, try run.read(run.log + "/checkpoint"))
        try FileManager.default.removeItem(atPath: run.reports)
        try FileManager.default.moveItem(atPath: copy, toPath: run.reports)
        #expect(try await run.verify().status == 0)
        let refused = try await run.verify(["--checkpoint", kept])
        #expect(refused.status == 1)
        #expect(
            Self.broken(refused).contains("\(kept): rewritten history: the kept checkpoint has size 6"), "\(refused)")
    }

    @Test("the Python verifier written from the specs and aics-tlog from PyPI accept the log of a real run")
    func outsideVerifiersAccept() async throws {
        let run = try await Self.deletedRun(subjects: ["s1", "s2", "s3"])
        defer { run.remove() }
        let kept = run.directory + "/kept-checkpoint"
        try run.write(kept, try run.read(run.log + "/checkpoint"))
        try await run.generate()
        let verified = try await run.verify(["--json"])
        try #require(verified.status == 0, "\(verified)")
        let verifierKey = try #require(
            try JSONValue.parse(verified.output)["logs"]?.arrayValue?.first?["verifierKey"]?.stringValue)
        let origin = "accountlifecycle/deletion-reports/demo"

        var receipts: [String] = []
        for (number, receipt) in run.files(in: run.receipts, suffix: ".tlog-proof").enumerated() {
            let entry = run.directory + "/entry-\(number)"
            try run.write(entry, try #require(try LogProof(parsing: try run.read(receipt)).extra))
            receipts += ["--receipt", receipt, "--entry", entry]
        }
        #expect(receipts.count == 12)
        let python = try #require(ExternalProcess.find("python3"), "python3 is not on PATH")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("TransparencyLogTests/Verifier/tlog_verify.py").path
        let fromSpec = try await ExternalProcess.run(
            python, [script, "--log", run.log, "--vkey", verifierKey, "--origin", origin, "--kept", kept] + receipts)
        #expect(fromSpec.status == 0, "\(fromSpec.output)")
        #expect(fromSpec.output.contains("ok: 8 entries hash to their leaves"), "\(fromSpec.output)")
        #expect(fromSpec.output.components(separatedBy: "ok: receipt").count - 1 == 3, "\(fromSpec.output)")

        let tool: String
        switch await AicsTlog.tool.value {
        case .success(let executable): tool = executable
        case .failure(let failure): try Test.cancel("aics-tlog unavailable: \(failure)")
        }
        let key = ["--log-key", verifierKey, "--origin", origin]
        let checkpoint = try await ExternalProcess.run(tool, ["verify-checkpoint", "--tiles", run.log] + key)
        #expect(checkpoint.status == 0, "\(checkpoint.output)")
        #expect(checkpoint.output.contains("\"tiles_ok\": true"), "\(checkpoint.output)")
        for index in stride(from: 0, to: receipts.count, by: 4) {
            let proof = try LogProof(parsing: try run.read(receipts[index + 1]))
            let inclusion = try await ExternalProcess.run(
                tool,
                ["verify-inclusion", "--tiles", run.log, "--index", String(proof.index), "--leaf", receipts[index + 3]]
                    + key)
            #expect(inclusion.status == 0, "\(inclusion.output)")
        }
        let consistency = try await ExternalProcess.run(
            tool, ["verify-consistency", "--tiles", run.log, "--old-checkpoint", kept] + key)
        #expect(consistency.status == 0, "\(consistency.output)")
    }
}
