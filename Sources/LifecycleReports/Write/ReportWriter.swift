import Foundation
import LifecycleCore
import LifecycleCrypto
import LifecycleEngine
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The write stage: writes a rendered report's files as temporary files, appends its signed, hash-chained line
/// to `reports/<app>/manifest.jsonl`, places the files under
/// `reports/<app>/<yyyy>/<date>-deletion-compliance.{html,json,csv}` (DESIGN.md §9), then appends its leaves to
/// the app's transparency log and writes its deletions' receipts (``ReportLog``).
///
/// Files are never overwritten and no name a line lists is taken again: a second report of the same day gets
/// `-2`, `-3`… so every manifest line keeps pointing at the bytes it hashed. An exclusive `flock(2)` on the manifest serialises writers (the `serve`
/// schedule and a manual `report generate`), so two reports never chain to the same predecessor.
public struct ReportWriter: Sendable {
    public var directory: String
    public var signingKey: Ed25519PrivateKey

    public init(directory: String, signingKey: Ed25519PrivateKey) {
        self.directory = directory
        self.signingKey = signingKey
    }

    /// What one ``write(_:)`` produced.
    public struct Written: Sendable {
        /// Absolute or directory-relative paths of the html, json and csv files.
        public var files: [String]
        public var manifestLine: ReportManifestLine
        public var dataset: ReportDataset
        /// What the log append did: lines appended (this one, and any a crash had left out), size, receipts.
        public var log: ReportLog.CaughtUp
        /// Seconds spent collecting and assembling the dataset (set by ``ReportGenerator``), and rendering and
        /// writing the three files durably; the log's own are in ``log``.
        public var collectSeconds: Double = 0
        public var fileSeconds: Double = 0
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// An app's manifest, open under an exclusive `flock(2)` and put right after a crash (see
    /// ``openManifest(appDirectory:)``).
    private struct OpenManifest {
        let descriptor: Int32
        let path: String
        /// The manifest's bytes, less a torn last line.
        let existing: Data
        /// Every line, parsed, with its bytes (without newline).
        let parsed: [(line: ReportManifestLine, text: [UInt8])]
        /// Files of the last line that a crash had kept from their names, now in place.
        let placedFiles: Int
    }

    /// Opens `appDirectory`'s manifest (creating it when `create`), takes its lock, and puts right what a crash
    /// left: a torn last line goes, the last line's files a crash kept from their names take them, and any other
    /// temporary report file goes. Every line is parsed before anything changes. The caller closes it.
    private func openManifest(appDirectory: String, create: Bool = true) throws -> OpenManifest {
        let manifestPath = appDirectory + "/" + ReportManifestLine.fileName
        let descriptor = open(manifestPath, O_RDWR | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0), 0o644)
        guard descriptor >= 0 else { throw Failure(description: "\(manifestPath): cannot open the manifest") }
        do {
            guard flock(descriptor, LOCK_EX) == 0 else {
                throw Failure(description: "\(manifestPath): cannot lock the manifest")
            }
            var existing = FileManager.default.contents(atPath: manifestPath) ?? Data()
            // A last line without its newline that does not parse is an append a crash tore (one `write`, the
            // newline its last byte): its report never took its names, which follow the line's `fsync`. It goes.
            if let end = existing.lastIndex(of: UInt8(ascii: "\n")).map({ $0 + 1 }) ?? Optional(0),
                end < existing.count, ReportManifestLine(parsing: existing[end...]) == nil
            {
                guard ftruncate(descriptor, off_t(end)) == 0, fsync(descriptor) == 0 else {
                    throw Failure(description: "\(manifestPath): cannot remove a torn last line: " + Self.reason())
                }
                existing = existing.prefix(end)
            }
            let lines = existing.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
            // Every line is read before anything changes: a line that is not one stops here.
            var parsed: [(line: ReportManifestLine, text: [UInt8])] = []
            for (number, raw) in lines.enumerated() {
                guard let line = ReportManifestLine(parsing: raw) else {
                    throw Failure(
                        description: "\(manifestPath) line \(number + 1): not a manifest line; run report verify")
                }
                parsed.append((line, Array(raw)))
            }
            // Under the lock no other writer has a file open: a temporary file now is a crash's. The last line's
            // files that a crash kept from their names take them; any other temporary file goes (a month's JSON
            // can be gigabytes), and a later report of another day would never reuse its name.
            let placed = try parsed.last.map { try placeFiles(of: $0.line, appDirectory: appDirectory) } ?? 0
            removeTemporaryFiles(appDirectory: appDirectory)
            return OpenManifest(
                descriptor: descriptor, path: manifestPath, existing: existing, parsed: parsed, placedFiles: placed)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// What ``recover(app:)`` did.
    public struct Recovered: Sendable {
        /// Files of the last report that a crash had kept from their names, now in place.
        public var placedFiles: Int
        public var log: ReportLog.CaughtUp
    }

    /// Finishes, for `app`, what a crash cut short in a write, without writing a report: under the manifest's
    /// lock, the last line's files take their names (``openManifest(appDirectory:create:)``), and lines the log
    /// lacks are appended to it, with their receipts (``ReportLog/catchUp(manifest:known:)``). `serve` runs it at
    /// start, so a report a crash interrupted is in place and logged within moments rather than at the next
    /// report. Nil, touching nothing, for an app with no manifest.
    public func recover(app: String) throws -> Recovered? {
        let appDirectory = directory + "/" + app
        guard access(appDirectory + "/" + ReportManifestLine.fileName, F_OK) == 0 else { return nil }
        let opened = try openManifest(appDirectory: appDirectory, create: false)
        defer { close(opened.descriptor) }
        guard !opened.parsed.isEmpty else { return nil }
        let log = try ReportLog(appDirectory: appDirectory, app: app, signingKey: signingKey)
            .catchUp(manifest: opened.parsed)
        return Recovered(placedFiles: opened.placedFiles, log: log)
    }

    public func write(_ dataset: ReportDataset) throws -> Written {
        let appDirectory = directory + "/" + dataset.app
        try FileManager.default.createDirectory(atPath: appDirectory, withIntermediateDirectories: true)
        let opened = try openManifest(appDirectory: appDirectory)
        defer { close(opened.descriptor) }
        let (descriptor, manifestPath, existing) = (opened.descriptor, opened.path, opened.existing)
        var manifest = opened.parsed
        let previous = manifest.last.map { ReportManifestLine.chainHash($0.text) } ?? ReportManifestLine.genesis
        let signingKeyID = try ReportKeys.signingKeyID(signingKey.publicKey)

        var dataset = dataset
        dataset.integrity = ReportIntegrity(
            sequence: manifest.count + 1, previousManifestLineSHA256: previous, signingKeyID: signingKeyID,
            manifest: ReportManifestLine.fileName)
        let base = try freeBaseName(
            appDirectory: appDirectory, generatedAt: dataset.generatedAt,
            listed: Set(manifest.flatMap { $0.line.files.map(\.path) }))
        // The three files are rendered at once, each on a thread of its own, and each is streamed: written and
        // hashed as it is rendered, so none is ever whole in memory (a large month's JSON and CSV files are
        // hundreds of megabytes each). They read the same rows (the spool is read with `pread`); on two cores the
        // JSON file, the largest, takes about as long as the other two together.
        let renderers: [(ext: String, render: @Sendable (ReportDataset, ReportFileSink) -> Void)] = [
            ("html", { dataset, sink in sink.append(ReportHTMLRenderer.page(dataset)) }),
            ("json", { dataset, sink in ReportJSONRenderer.render(dataset) { sink.append($0) } }),
            ("csv", { dataset, sink in ReportCSVRenderer.render(dataset) { sink.append($0) } }),
        ]
        let clock = ContinuousClock()
        let renderStarted = clock.now
        let rendered = Mutex<[Int: Result<(sink: ReportFileSink, sha256: String), any Error>]>([:])
        let renderedDataset = dataset
        DispatchQueue.concurrentPerform(iterations: renderers.count) { index in
            let (ext, render) = renderers[index]
            let outcome = Result { () throws -> (sink: ReportFileSink, sha256: String) in
                let sink = try ReportFileSink(path: appDirectory + "/" + base + "." + ext)
                render(renderedDataset, sink)
                return (sink, try sink.seal())
            }
            rendered.withLock { $0[index] = outcome }
        }
        // All three are sealed and checked before the line naming them is written, and take their names only
        // after it: a report that fails leaves only temporary files (each sink removes its own; one a crash
        // left goes with the next write), and one whose line was written takes its names, now or, after a
        // crash, at the next write (``placeFiles(of:appDirectory:)``).
        var files: [(path: String, sha256: String)] = []
        var sinks: [ReportFileSink] = []
        for (index, renderer) in renderers.enumerated() {
            guard let outcome = rendered.withLock({ $0.removeValue(forKey: index) }) else {
                throw Failure(description: "\(appDirectory)/\(base).\(renderer.ext): not rendered")
            }
            let (sink, sha256) = try outcome.get()
            sinks.append(sink)
            files.append((base + "." + renderer.ext, sha256))
        }
        // A row the spool could not read back was rendered as a stand-in: none of the files is kept.
        try renderedDataset.subjects.checkRead()
        // The last point a stop (the calling task cancelled: serve stopping) ends the write: the sinks remove
        // their temporary files, as for any failure before the line.
        try Task.checkCancellation()
        // The temporary files' entries, and a year directory made for them, are durable before the line naming
        // the files is, and the renames before the log's leaves are.
        try Self.syncDirectories(holding: sinks.map(\.path), also: appDirectory)

        var line = ReportManifestLine(
            sequence: manifest.count + 1, app: dataset.app, schema: ReportDataset.schema, period: dataset.period,
            generatedAt: dataset.generatedAt, files: files, previousLineSHA256: previous,
            pseudonymKeyID: dataset.pseudonymKeyID, signingKeyID: signingKeyID)
        try line.sign(with: signingKey)
        var bytes = Array((line.text + "\n").utf8)
        // A manifest whose last line lacks its newline (a crash mid-append) gets one first.
        if let last = existing.last, last != UInt8(ascii: "\n") { bytes.insert(UInt8(ascii: "\n"), at: 0) }
        // From here the line may be on disk: its files stay, under their names or as temporary files the next
        // write places, unless the append is undone.
        for sink in sinks { sink.keepTemporaryFile() }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            let reason = Self.reason()
            // Cut back to the lines before it: then no line names the files, and they go.
            if ftruncate(descriptor, off_t(existing.count)) == 0, fsync(descriptor) == 0 {
                for sink in sinks { sink.discardTemporaryFile() }
                throw Failure(description: "\(manifestPath): cannot append the manifest line: \(reason)")
            }
            throw Failure(
                description: "\(manifestPath): cannot append the manifest line (\(reason)), and it may be written: "
                    + "the next report generate places its files")
        }
        for sink in sinks { try sink.publish() }
        try Self.syncDirectories(holding: sinks.map(\.path), also: appDirectory)
        let fileSeconds = (clock.now - renderStarted).inSeconds

        // Still under the manifest's lock, so the log sees the lines in order and one writer at a time.
        manifest.append((line, Array(line.text.utf8)))
        let log = try ReportLog(appDirectory: appDirectory, app: dataset.app, signingKey: signingKey)
            .catchUp(
                manifest: manifest,
                known: [line.sequence: ReportLogEntries(line: line, lineText: Array(line.text.utf8), dataset: dataset)])
        return Written(
            files: files.map { appDirectory + "/" + $0.path }, manifestLine: line, dataset: dataset, log: log,
            fileSeconds: fileSeconds)
    }

    /// Gives `line`'s files their names where a crash left them as temporary files after the line was written:
    /// a file missing under its name whose `<name>.tmp` is a regular file with the SHA-256 the line lists is
    /// renamed into place. One whose `<name>.tmp` cannot be read or differs stops the write, changing nothing:
    /// it is the only copy of a file a signed line names. A file missing with no `<name>.tmp` is left for
    /// `report verify` to name.
    private func placeFiles(of line: ReportManifestLine, appDirectory: String) throws -> Int {
        var waiting: [String] = []
        for file in line.files {
            let path = appDirectory + "/" + file.path
            var status = stat()
            guard access(path, F_OK) != 0, lstat(path + ".tmp", &status) == 0 else { continue }
            guard status.st_mode & S_IFMT == S_IFREG, ReportFileReader.sha256Hex(path + ".tmp") == file.sha256 else {
                throw Failure(
                    description: "\(path).tmp: not the file manifest line \(line.sequence) lists (SHA-256 differs "
                        + "or it cannot be read); nothing was written; run report verify")
            }
            waiting.append(path)
        }
        for path in waiting {
            guard rename(path + ".tmp", path) == 0 else {
                throw Failure(description: "\(path): cannot rename into place: " + Self.reason())
            }
        }
        try Self.syncDirectories(holding: waiting)
        return waiting.count
    }

    /// Makes the directory entries of `paths` durable: each directory holding one is flushed, the deepest
    /// first, then `extra` (the app directory, which holds a year directory made for them).
    private static func syncDirectories(holding paths: [String], also extra: String? = nil) throws {
        var directories = Set(paths.map { String($0[..<($0.lastIndex(of: "/") ?? $0.endIndex)]) })
        if let extra { directories.insert(extra) }
        for directory in directories.sorted(by: { $0.count > $1.count }) { try DurableFile.syncDirectory(directory) }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }

    /// Removes `<yyyy>/*-deletion-compliance*.{html,json,csv}.tmp`, the regular files a render cut short by a
    /// crash left (``ReportFileSink`` removes its own when it fails); anything else by such a name, which no
    /// sink made, is left alone. Only the year directories are read, never the log or the receipts.
    private func removeTemporaryFiles(appDirectory: String) {
        let years = (try? FileManager.default.contentsOfDirectory(atPath: appDirectory)) ?? []
        for year in years where year.utf8.count == 4 && year.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            let directory = appDirectory + "/" + year
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            where name.hasSuffix(".tmp") && Self.isReportFile(named: String(name.dropLast(4))) {
                var status = stat()
                let path = directory + "/" + name
                if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG { unlink(path) }
            }
        }
    }

    /// Whether a file name is one a report's files take (`<date>-deletion-compliance[-N].{html,json,csv}`),
    /// tested by its suffix first, which turns most other names down without a search (the verifier asks it of
    /// every receipt's name).
    static func isReportFile(named name: String) -> Bool {
        (name.hasSuffix(".html") || name.hasSuffix(".json") || name.hasSuffix(".csv"))
            && name.contains("-deletion-compliance")
    }

    /// `<yyyy>/<yyyy-MM-dd>-deletion-compliance`, with `-2`, `-3`… when that day already has a report: a file
    /// by the name, or a manifest line listing one (even if the file is gone: verify names it missing, and no
    /// other bytes may take its name).
    private func freeBaseName(appDirectory: String, generatedAt: Instant, listed: Set<String>) throws -> String {
        let day = ReportPeriod.dayName(generatedAt)
        let year = String(day.prefix(4))
        try FileManager.default.createDirectory(
            atPath: appDirectory + "/" + year, withIntermediateDirectories: true)
        var counter = 1
        while true {
            let base = "\(year)/\(day)-deletion-compliance" + (counter == 1 ? "" : "-\(counter)")
            let taken = ["html", "json", "csv"].contains {
                listed.contains(base + "." + $0)
                    || FileManager.default.fileExists(atPath: appDirectory + "/" + base + "." + $0)
            }
            if !taken { return base }
            counter += 1
        }
    }
}

extension ReportWriter {
    /// When the app's newest report under `directory` was generated: its manifest's last line that parses, nil
    /// without one. A read without the manifest lock, for `serve`'s daily schedule.
    public static func newestReport(app: String, in directory: String) -> Instant? {
        let path = directory + "/" + app + "/" + ReportManifestLine.fileName
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        for line in bytes.split(separator: UInt8(ascii: "\n")).reversed() {
            if let parsed = ReportManifestLine(parsing: line) { return parsed.generatedAt }
        }
        return nil
    }
}
