import Foundation
import LifecycleCrypto
import LifecycleEngine
import Synchronization
import TransparencyLog

/// An app's transparency log of reports: `reports/<app>/log/` (c2sp.org/tlog-tiles, checkpoint signed as a
/// c2sp.org/signed-note with the report signing key) and one c2sp.org/tlog-proof receipt per deletion request
/// under `reports/<app>/receipts/`.
///
/// ``catchUp(manifest:)`` runs after a report's manifest line is written, under the manifest's lock. It reads
/// the sequence the log's last leaf names (a report leaf, see ``ReportLogEntries``) and appends, in one
/// append and so under one new checkpoint, the leaves of every manifest line after it. A report written and
/// appended once is never appended again (idempotent), and a manifest line that a crash left outside the log
/// is appended by the next write (repaired). Receipts follow the checkpoint: for every line appended, and
/// for every logged line after the size `receipts/.complete` names (receipts a crash cut short, see
/// ``firstUnreceipted(reader:size:logged:marker:)``), each deletion's receipt is written
/// against the new checkpoint (see ``writeReceipts(_:treeSize:)``); one `syncfs(2)` then makes them all
/// durable together (an `fsync` per receipt cost about a millisecond each, most of a large month's report).
public struct ReportLog: Sendable {
    public let appDirectory: String
    public let app: String
    public let publisher: LogPublisher

    public init(appDirectory: String, app: String, signingKey: Ed25519PrivateKey) throws(TransparencyLogError) {
        self.appDirectory = appDirectory
        self.app = app
        let origin = ReportLogEntries.origin(app: app)
        publisher = LogPublisher(
            directory: appDirectory + "/" + ReportLogEntries.logDirectory, origin: origin,
            signer: try NoteSigner(name: origin, privateKey: signingKey))
    }

    /// What one catch-up did.
    public struct CaughtUp: Sendable {
        /// Manifest lines whose leaves were appended now (empty when the log already held them all).
        public var appendedLines: [Int]
        public var treeSize: UInt64
        public var receiptsWritten: Int
        /// The note verifier key an auditor gives outside verifiers (`<origin>+<key ID>+<key>`).
        public var verifierKey: String
        /// Seconds spent appending the leaves (tiles, bundles, checkpoint) and writing the receipts (with
        /// their `syncfs` and the marker).
        public var appendSeconds: Double = 0
        public var receiptSeconds: Double = 0
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `manifest`: every line of the app's manifest, in order, with the bytes of each (without newline).
    /// `known`: the leaves of lines the caller has already derived, by sequence (the writer's new report, from
    /// the dataset it rendered, instead of reading its JSON file back); the others are read from their files.
    public func catchUp(
        manifest: [(line: ReportManifestLine, text: [UInt8])], known: [Int: ReportLogEntries] = [:]
    ) throws -> CaughtUp {
        let store = publisher.store
        let current = try publisher.currentCheckpoint()
        let size = current?.checkpoint.size ?? 0
        var logged = 0
        // The first line whose receipts may be missing or cut short (0-based, so the line after that many).
        var firstUnreceipted = 0
        if let current, size > 0 {
            // The last leaf decides what is appended: trust it only once it is proven under the signed root.
            let reader = TileHashReader(store: store, treeSize: size)
            let last = try reader.entry(at: size - 1)
            try reader.tree.inclusionProof(index: size - 1, size: size).verify(
                leafHash: MerkleHash.leaf(last), rootHash: current.checkpoint.rootHash)
            guard let sequence = ReportLogEntries.reportSequence(ofLeaf: last), sequence >= 1 else {
                throw Failure(description: "\(store.directory): the last leaf is not a report leaf; run report verify")
            }
            logged = sequence
            firstUnreceipted = try Self.firstUnreceipted(
                reader: reader, size: size, logged: logged, marker: Self.receiptedSize(appDirectory: appDirectory))
        }
        guard logged <= manifest.count else {
            throw Failure(
                description: "\(store.directory): the log holds manifest line \(logged) but the manifest has only "
                    + "\(manifest.count) lines; run report verify")
        }
        let receiptsComplete = size > 0 && firstUnreceipted == logged
        var groups: [ReportLogEntries] = []
        for (line, text) in manifest[firstUnreceipted...] {
            groups.append(try known[line.sequence] ?? entries(line: line, text: text))
        }
        // Made as they are appended: a large report's leaves come from its rows one at a time.
        let newGroups = groups.dropFirst(logged - firstUnreceipted)
        let clock = ContinuousClock()
        let appendStarted = clock.now
        var treeSize = size
        if !newGroups.isEmpty {
            // A leaf made from a row the spool could not read back is a stand-in: the checkpoint must not sign it.
            treeSize = try publisher.append(newGroups.lazy.flatMap(\.leaves)) { () throws(TransparencyLogError) in
                for group in newGroups {
                    do throws(ReportRowSpool.Failure) { try group.outcomes.checkRead() } catch {
                        throw TransparencyLogError(.ioFailed, error.description)
                    }
                }
            }.checkpoint.checkpoint.size
        }
        let receiptsStarted = clock.now
        let receiptDirectory = appDirectory + "/" + ReportLogEntries.receiptDirectory
        try FileManager.default.createDirectory(atPath: receiptDirectory, withIntermediateDirectories: true)
        let receiptsWritten = groups.isEmpty ? 0 : try writeReceipts(groups, treeSize: treeSize)
        if receiptsWritten > 0 { try DurableFile.syncFileSystem(holding: receiptDirectory) }
        // Only once every receipt is durable: a crash before this leaves the marker at the size before, and the
        // next catch-up rewrites the receipts of the line before the ones it appends.
        if treeSize > 0, !receiptsComplete || treeSize != size {
            try DurableFile.write(
                Array("\(treeSize)\n".utf8), to: appDirectory + "/" + ReportLogEntries.receiptedMarkerPath, mode: 0o644)
        }
        return CaughtUp(
            appendedLines: manifest.suffix(manifest.count - logged).map(\.line.sequence), treeSize: treeSize,
            receiptsWritten: receiptsWritten, verifierKey: publisher.signer.verifierKey.text,
            appendSeconds: (receiptsStarted - appendStarted).inSeconds,
            receiptSeconds: (clock.now - receiptsStarted).inSeconds)
    }

    /// How many logged lines have all their receipts: the lines after them get theirs (again). The marker
    /// names the tree size up to which every receipt was written; the leaf before it is the report leaf of the
    /// last such line, so a crash — or crashes one after another — while receipts were written sends the
    /// catch-up back exactly as far as needed, and a large month before them is not read back. Without a
    /// usable marker (a log written before it), the last line's receipts are rewritten, as before it existed.
    static func firstUnreceipted(reader: TileHashReader, size: UInt64, logged: Int, marker: UInt64?) throws -> Int {
        guard let marker, marker > 0, marker <= size else { return max(logged - 1, 0) }
        if marker == size { return logged }
        guard let sequence = ReportLogEntries.reportSequence(ofLeaf: try reader.entry(at: marker - 1)),
            sequence >= 1, sequence <= logged
        else { return max(logged - 1, 0) }
        return sequence
    }

    /// Writes each deletion's receipt of `groups` (manifest lines in the log, which ends at `treeSize`) against
    /// the current checkpoint, unflushed, and returns how many. The groups end at the log's last leaf: walking
    /// back from it gives each outcome leaf's index, and later leaves come first, so the receipt written for a
    /// deletion is its latest outcome's; each replaces its file whole.
    ///
    /// A report's receipts are written by ``receiptWorkers`` threads at once, each taking a contiguous run of
    /// its rows (making a leaf from its row, the proof from the tiles, and the file are each a receipt's own
    /// work). A deletion that two runs of one report both hold is written again, last, from the later run, so
    /// the file ends as a single thread would have left it.
    ///
    /// Each outcome is checked once made: one made from a row the spool could not read back stops the
    /// writing before its receipt (whose name would come from a stand-in), and the marker stays where it was.
    private func writeReceipts(_ groups: [ReportLogEntries], treeSize: UInt64) throws -> Int {
        let prover = try publisher.prover()
        var written = Set<ReceiptName>()
        var end = treeSize
        for group in groups.reversed() {
            let (start, underflow) = end.subtractingReportingOverflow(UInt64(group.leafCount))
            guard !underflow else {
                throw Failure(
                    description:
                        "\(publisher.store.directory) holds fewer leaves than its reports give; run report verify")
            }
            let outcomes = group.outcomes
            let runs = Self.runs(count: outcomes.count, workers: Self.receiptWorkers)
            let later = written
            let results = Mutex<[Int: Result<Set<ReceiptName>, any Error>]>([:])
            // Later runs are started first, so a deletion an earlier run also holds is, on any schedule, most
            // likely written last by the wrong run: the rewrite below is what makes the file right, not luck.
            DispatchQueue.concurrentPerform(iterations: runs.count) { iteration in
                let run = runs.count - 1 - iteration
                let result = Result { () throws -> Set<ReceiptName> in
                    var names = Set<ReceiptName>()
                    for offset in runs[run].reversed() {
                        let outcome = outcomes[offset]
                        try outcomes.checkRead()
                        let path = outcome.key.receiptPath
                        let name = ReceiptName(path)
                        guard !later.contains(name), names.insert(name).inserted else { continue }
                        try writeReceipt(prover, index: start + UInt64(offset), outcome: outcome, path: path)
                    }
                    return names
                }
                results.withLock { $0[run] = result }
            }
            // A name that a later run wrote too was written twice, in no known order: walking back from the
            // report's end, its first row is its latest, and that receipt is written again, last.
            var twice = Set<ReceiptName>()
            var reportNames = Set<ReceiptName>()
            for run in runs.indices.reversed() {
                guard let result = results.withLock({ $0[run] }) else { continue }
                for name in try result.get() where !reportNames.insert(name).inserted { twice.insert(name) }
            }
            for offset in outcomes.indices.reversed() where !twice.isEmpty {
                let outcome = outcomes[offset]
                try outcomes.checkRead()
                let path = outcome.key.receiptPath
                guard twice.remove(ReceiptName(path)) != nil else { continue }
                try writeReceipt(prover, index: start + UInt64(offset), outcome: outcome, path: path)
            }
            written.formUnion(reportNames)
            end = start
        }
        return written.count
    }

    private func writeReceipt(
        _ prover: LogProver, index: UInt64, outcome: (key: ReportLogEntries.DeletionKey, entry: [UInt8]), path: String
    ) throws {
        let proof = try prover.receipt(index: index, extra: outcome.entry).bytes
        // In place, not through a temporary file and a rename: each of those took a directory operation under
        // the directory's lock, and each replacement freed an inode and allocated another, which ext4 grows
        // slow at when hundreds of thousands were freed moments before (a daily report rewrites every
        // receipt of its month). A crash can leave a receipt empty or short, as it can leave one unwritten:
        // the marker then names a smaller size, and the next catch-up writes that line's receipts again.
        try DurableFile.overwrite(proof, at: appDirectory + "/" + path, mode: 0o644)
    }

    /// Threads that write one report's receipts: the machine's cores, at most four.
    static let receiptWorkers = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))

    /// `0..<count` cut into at most `workers` contiguous runs of nearly equal length, in order; none empty.
    package static func runs(count: Int, workers: Int) -> [Range<Int>] {
        let parts = max(1, min(workers, count))
        return (0..<parts).map { part in (count * part / parts)..<(count * (part + 1) / parts) }.filter { !$0.isEmpty }
    }

    /// The tree size whose receipts were all written (``ReportLogEntries/receiptedMarkerPath``); nil when
    /// unknown (no marker: a log written before it, or a first append cut short).
    static func receiptedSize(appDirectory: String) -> UInt64? {
        guard let bytes = ReportFileReader.bytes(appDirectory + "/" + ReportLogEntries.receiptedMarkerPath) else {
            return nil
        }
        return UInt64(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private func entries(line: ReportManifestLine, text: [UInt8]) throws -> ReportLogEntries {
        guard let json = line.jsonFile, FileManager.default.fileExists(atPath: appDirectory + "/" + json.path)
        else {
            throw Failure(description: "\(appDirectory): the JSON report of manifest line \(line.sequence) is missing")
        }
        do {
            return try ReportLogEntries(line: line, lineText: text, reportFile: appDirectory + "/" + json.path)
        } catch {
            throw Failure(description: "\(appDirectory)/\(error); it is not logged, run report verify")
        }
    }
}
