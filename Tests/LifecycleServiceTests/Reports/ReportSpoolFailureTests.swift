import Foundation
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing
import TransparencyLog

@testable import LifecycleReports

#if canImport(Glibc)
    import Glibc
#endif

/// A report's rows wait in a spool file on the reports disk. When that disk fails to give a record back, the
/// process goes on (no trap): the row read is a stand-in, and every step that would keep or answer with what
/// the rows made refuses instead, with one line: the three files are not kept, the log's checkpoint does not
/// sign the leaves, no receipt is written from the stand-in and the receipts marker does not move. The disk
/// failure is made real: the spool's own descriptor, found in `/proc/self/fd`, is cut to nothing, so its next
/// `pread` meets the end of the file.
@Suite("report row spool read failures")
struct ReportSpoolFailureTests {
    /// The fixture's rows, waiting in a spool made in `directory`.
    static func spooledDataset(in directory: String) throws -> ReportDataset {
        var dataset = ReportFixture.assembler.assemble(ReportFixture.inputs)
        let builder = try ReportRowSpool.Builder(directories: [directory])
        for row in dataset.subjects { try builder.append(row) }
        dataset.subjects = ReportRows(spool: try builder.finish())
        return dataset
    }

    /// Cuts every open spool file of this process made in `directory` to nothing; returns how many.
    static func cutSpools(in directory: String) throws -> Int {
        let real = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        var cut = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard let descriptor = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                target.hasPrefix(real + "/.report-rows."), target.hasSuffix(" (deleted)")
            else { continue }
            guard ftruncate(descriptor, 0) == 0 else { continue }
            cut += 1
        }
        return cut
    }

    static func manifest(_ appDirectory: String) throws -> [(line: ReportManifestLine, text: [UInt8])] {
        let bytes = try #require(FileManager.default.contents(atPath: appDirectory + "/" + ReportManifestLine.fileName))
        return try bytes.split(separator: UInt8(ascii: "\n")).map { raw in
            (try #require(ReportManifestLine(parsing: raw)), Array(raw))
        }
    }

    /// Every file under `directory` with its bytes.
    static func snapshot(_ directory: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            files[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        return files
    }

    static func verifies(_ reports: String, _ key: Ed25519PrivateKey) throws -> Int {
        try ReportVerifier.verify(directory: reports, publicKey: key.publicKey).verifiedReports
    }

    @Test("a record that does not read back is a stand-in, and every check after it throws one line")
    func standIn() throws {
        let directory = try TemporaryDirectory()
        let dataset = try Self.spooledDataset(in: directory.path)
        let rows = dataset.subjects
        #expect(rows.count > 3)
        let first = rows[0]
        try rows.checkRead()
        #expect(try Self.cutSpools(in: directory.path) == 1)
        let standIn = rows[1]
        #expect(standIn.pseudonym.isEmpty && standIn.eventType.isEmpty && standIn.targets.isEmpty)
        #expect(standIn != ReportFixture.assembler.assemble(ReportFixture.inputs).subjects[1])
        let error = #expect(throws: ReportRowSpool.Failure.self) { try rows.checkRead() }
        let message = error?.description ?? ""
        #expect(message.hasPrefix("report row spool in \(directory.path): cannot read "), "\(message)")
        #expect(message.hasSuffix(": the file ended early") && !message.contains("\n"), "\(message)")
        // The first failure stays the one named, whatever is read after it.
        _ = rows[0]
        let again = #expect(throws: ReportRowSpool.Failure.self) { try rows.checkRead() }
        #expect(again?.description == message)
        #expect(first.pseudonym.hasPrefix("ps_"))
    }

    @Test("the request ledger throws, as JSON and as totals, rather than answer without a row")
    func ledger() throws {
        let directory = try TemporaryDirectory()
        let dataset = try Self.spooledDataset(in: directory.path)
        let document = try ReportLedgerRenderer.document(dataset)
        #expect(document["requests"]?.arrayValue?.count == dataset.subjects.count)
        #expect(try ReportLedgerRenderer.totals(of: dataset).received == dataset.subjects.count)
        #expect(try Self.cutSpools(in: directory.path) == 1)
        #expect(throws: ReportRowSpool.Failure.self) { try ReportLedgerRenderer.document(dataset) }
        #expect(throws: ReportRowSpool.Failure.self) { try ReportLedgerRenderer.totals(of: dataset) }
    }

    @Test("the report's three files are not kept and no manifest line is written; the next report is")
    func writerKeepsNothing() throws {
        let directory = try TemporaryDirectory()
        let reports = directory.file("reports")
        let key = try ReportKeys.signingKey(path: directory.file("report-ed25519.pem"))
        let writer = ReportWriter(directory: reports, signingKey: key)
        let dataset = try Self.spooledDataset(in: reports)
        #expect(try Self.cutSpools(in: reports) == 1)
        let error = #expect(throws: ReportRowSpool.Failure.self) { try writer.write(dataset) }
        #expect(error?.description.contains("report row spool in \(reports): cannot read") == true)
        let appDirectory = reports + "/" + ReportFixture.app
        let left = FileManager.default.enumerator(atPath: appDirectory)?.compactMap { $0 as? String } ?? []
        #expect(left.filter { $0.contains("deletion-compliance") }.isEmpty, "\(left)")
        #expect(FileManager.default.contents(atPath: appDirectory + "/" + ReportManifestLine.fileName)?.count == 0)
        #expect(!FileManager.default.fileExists(atPath: appDirectory + "/log/checkpoint"))

        // The same process writes the next report from rows that read back, and it verifies.
        _ = try writer.write(try Self.spooledDataset(in: reports))
        #expect(try Self.verifies(reports, key) == 1)
    }

    /// A report of the fixture's spooled rows, written, logged and receipted in a fresh directory.
    struct WrittenReport {
        let directory: TemporaryDirectory
        let key: Ed25519PrivateKey
        let written: ReportWriter.Written
        var reports: String { directory.file("reports") }
        var appDirectory: String { reports + "/" + ReportFixture.app }
        /// The new line's leaves from its dataset, as the writer hands them to the log: made from the spool.
        var known: [Int: ReportLogEntries] {
            let line = written.manifestLine
            return [
                line.sequence: ReportLogEntries(line: line, lineText: Array(line.text.utf8), dataset: written.dataset)
            ]
        }
        var log: ReportLog {
            get throws { try ReportLog(appDirectory: appDirectory, app: ReportFixture.app, signingKey: key) }
        }
    }

    static func writeSpooledReport() throws -> WrittenReport {
        let directory = try TemporaryDirectory()
        let reports = directory.file("reports")
        let key = try ReportKeys.signingKey(path: directory.file("report-ed25519.pem"))
        let written = try ReportWriter(directory: reports, signingKey: key).write(Self.spooledDataset(in: reports))
        return WrittenReport(directory: directory, key: key, written: written)
    }

    @Test("a line whose leaves are made from a failed read is not signed into the log; read from its file, it is")
    func logNotSigned() throws {
        let report = try Self.writeSpooledReport()
        // As if the line had been written and the log append not: no log yet, the line in the manifest.
        try FileManager.default.removeItem(atPath: report.appDirectory + "/log")
        let manifest = try Self.manifest(report.appDirectory)
        #expect(try Self.cutSpools(in: report.reports) == 1)
        let log = try report.log
        let known = report.known
        let error = #expect(throws: TransparencyLogError.self) { try log.catchUp(manifest: manifest, known: known) }
        #expect(error?.code == .ioFailed)
        #expect(error?.description.contains("report row spool in \(report.reports): cannot read") == true)
        #expect(!FileManager.default.fileExists(atPath: report.appDirectory + "/log/checkpoint"))

        // Read from its JSON file instead, the line is appended and the whole verifies.
        let caughtUp = try log.catchUp(manifest: manifest)
        #expect(caughtUp.appendedLines == [1])
        #expect(try Self.verifies(report.reports, report.key) == 1)
    }

    @Test("receipts rewritten from a failed read are not written, and the marker stays where it was")
    func receiptsNotWritten() throws {
        let report = try Self.writeSpooledReport()
        let written = report.written
        #expect(written.log.receiptsWritten > 3)
        let appDirectory = report.appDirectory
        let receipts = appDirectory + "/" + ReportLogEntries.receiptDirectory
        // As if a crash had come while the receipts were written: without the marker the line's are rewritten.
        try FileManager.default.removeItem(atPath: appDirectory + "/" + ReportLogEntries.receiptedMarkerPath)
        let before = Self.snapshot(receipts)
        #expect(try Self.cutSpools(in: report.reports) == 1)
        let log = try report.log
        let known = report.known
        let error = #expect(throws: ReportRowSpool.Failure.self) {
            _ = try log.catchUp(manifest: try Self.manifest(appDirectory), known: known)
        }
        #expect(error?.description.contains("cannot read") == true)
        #expect(Self.snapshot(receipts) == before)
        #expect(!FileManager.default.fileExists(atPath: appDirectory + "/" + ReportLogEntries.receiptedMarkerPath))

        let caughtUp = try log.catchUp(manifest: try Self.manifest(appDirectory))
        #expect(caughtUp.receiptsWritten == written.log.receiptsWritten)
        #expect(FileManager.default.fileExists(atPath: appDirectory + "/" + ReportLogEntries.receiptedMarkerPath))
        #expect(try Self.verifies(report.reports, report.key) == 1)
    }
}
