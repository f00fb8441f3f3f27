import Foundation
import LifecycleCrypto
import TransparencyLog

/// The transparency-log half of `lifecycle report verify`, for one app, after its manifest verified:
///
/// 1. the log as an outside auditor reads it (``LogAuditor``): the checkpoint's Ed25519 note signature by the
///    given key under the app's origin, every tile against the tile above, every entry against its leaf hash,
///    the tiles' root against the signed root; and, given a checkpoint the auditor kept, the consistency proof
///    from it to the current one (RFC 9162 §2.1.4), so a rewritten history is named even when re-signed;
/// 2. the log holds exactly the leaves the manifest and its reports give (``ReportLogEntries``), in order, and
///    each report leaf's inclusion proof leads to the signed root (RFC 9162 §2.1.3);
/// 3. every receipt: its proof against its own checkpoint, that checkpoint consistent with the current one,
///    its entry the log's leaf at its index and named by its file; and every deletion has a receipt of its
///    latest outcome.
enum ReportLogVerifier {
    struct Verified: Sendable {
        var treeSize: UInt64
        var receipts: Int
        var verifierKey: String
        var keptCheckpointChecked: Bool
    }

    /// `kept`: a checkpoint file of this app's log that the auditor kept, with its path (for messages).
    static func verify(
        appDirectory: String, app: String, manifest: [(line: ReportManifestLine, text: [UInt8])],
        publicKey: Ed25519PublicKey, kept: (path: String, bytes: [UInt8])?
    ) -> Result<Verified, ReportVerifier.Broken> {
        let origin = ReportLogEntries.origin(app: app)
        let logDirectory = appDirectory + "/" + ReportLogEntries.logDirectory
        let manifestPath = appDirectory + "/" + ReportManifestLine.fileName
        func broken(_ item: String, _ problem: String) -> Result<Verified, ReportVerifier.Broken> {
            .failure(ReportVerifier.Broken(item: item, problem: problem))
        }
        let key: NoteVerifierKey
        do { key = try NoteVerifierKey(name: origin, publicKey: publicKey) } catch {
            return broken(logDirectory, "\(error)")
        }
        let store = DirectoryTileStore(directory: logDirectory)
        guard (try? store.read(LogPublisher.checkpointPath)) != nil else {
            return broken(
                logDirectory + "/" + LogPublisher.checkpointPath,
                "missing: these reports are in no transparency log (the next report generate publishes it)")
        }
        let auditor = LogAuditor(store: store, origin: origin, trusting: [key])
        let audit = auditor.audit(keptCheckpoint: kept?.bytes)
        if let problem = audit.problems.first {
            if problem.code == .rewrittenHistory, let kept { return broken(kept.path, problem.description) }
            return broken(logDirectory, problem.description)
        }
        guard let current = audit.checkpoint else { return broken(logDirectory, "no verified checkpoint") }
        let size = current.checkpoint.size
        let reader = TileHashReader(store: store, treeSize: size)

        // 2. The leaves the reports give, against the leaves the log holds: each report's rows are walked as
        // its JSON file is read, so neither the file nor its leaves are ever whole in memory.
        var index: UInt64 = 0
        // Per deletion, its latest outcome leaf: index and leaf hash (the receipts are checked against them).
        var latest: [ReceiptName: LatestLeaf] = [:]
        for (line, text) in manifest {
            let item = "\(manifestPath) line \(line.sequence)"
            let notLogged = broken(
                item,
                "not in the transparency log: its checkpoint (size \(size)) ends before this report's leaves "
                    + "(a write was cut short; the next report generate appends them)")
            func differs(_ at: UInt64, _ kind: String) -> Result<Verified, ReportVerifier.Broken> {
                broken(
                    "\(logDirectory) leaf \(at)",
                    "differs from the \(kind) leaf that manifest line \(line.sequence) and its report give "
                        + "(the log or the report was changed)")
            }
            guard let json = line.jsonFile else {
                return broken(item, "its JSON report cannot be read")
            }
            var at = index
            var problem: Result<Verified, ReportVerifier.Broken>?
            let reportLeaf: [UInt8]
            do {
                reportLeaf = try ReportLogEntries.walk(
                    line: line, lineText: text, reportFile: appDirectory + "/" + json.path
                ) { key, leaf in
                    guard at < size else {
                        problem = notLogged
                        return false
                    }
                    do {
                        guard try reader.entry(at: at) == leaf else {
                            problem = differs(at, "deletion-outcome")
                            return false
                        }
                    } catch {
                        problem = broken(logDirectory, "\(error)")
                        return false
                    }
                    latest[ReceiptName(key)] = LatestLeaf(index: at, hash: MerkleHash.leaf(leaf))
                    at += 1
                    return true
                }
            } catch {
                return broken(item, "\(error)")
            }
            if let problem { return problem }
            guard at < size else { return notLogged }
            do {
                guard try reader.entry(at: at) == reportLeaf else { return differs(at, "report") }
                let proof = try reader.tree.inclusionProof(index: at, size: size)
                try proof.verify(leafHash: MerkleHash.leaf(reportLeaf), rootHash: current.checkpoint.rootHash)
            } catch {
                return broken(item, "its report leaf \(at) is not included: \(error)")
            }
            index = at + 1
        }
        guard index == size else {
            return broken(
                logDirectory,
                "holds \(size - index) leaves after the last manifest line's (a manifest line was deleted, or leaves "
                    + "were added that no report gives)")
        }

        // 3. Receipts, in the order the directory gives them as it is read, so a million names are never held;
        // of the broken ones, the first by name is reported, as when they were read in name order.
        let receiptDirectory = appDirectory + "/" + ReportLogEntries.receiptDirectory
        var receipts = 0
        var firstBroken: (name: String, broken: Result<Verified, ReportVerifier.Broken>)?
        // Receipts of an older outcome than the deletion's latest, by deletion.
        var stale: [ReceiptName: UInt64] = [:]
        // A report's receipts all carry the checkpoint of its append: its signature and its consistency with
        // the current one are checked once, when it is first opened, not once per receipt.
        var opened: [[UInt8]: SignedCheckpoint] = [:]
        func check(_ fileName: String) -> Result<Verified, ReportVerifier.Broken>? {
            let path = receiptDirectory + "/" + fileName
            guard let bytes = ReportFileReader.bytes(path) else { return broken(path, "cannot be read") }
            do {
                let proof = try LogProof(parsing: bytes)
                let newCheckpoint = opened[proof.checkpoint] == nil
                let signed = try auditor.verifyReceipt(proof, opened: &opened)
                if newCheckpoint { try auditor.verifyConsistency(from: signed, to: current) }
                guard let entry = proof.extra, proof.index < size else {
                    return broken(path, "its entry is not the log's leaf \(proof.index)")
                }
                // Receipts come in no order of the log: a receipt of a deletion's latest outcome is compared with
                // the leaf hash the leaf pass kept, any other with the leaf read back.
                let key = ReportLogEntries.deletionKey(ofLeaf: entry)
                let name = key.map(ReceiptName.init)
                let known = name.flatMap { latest[$0] }
                let isLatest = known?.index == proof.index
                let logged =
                    if let known, isLatest {
                        known.hash == LeafDigest(MerkleHash.leaf(entry))
                    } else {
                        try reader.entry(at: proof.index) == entry
                    }
                guard logged else { return broken(path, "its entry is not the log's leaf \(proof.index)") }
                guard let key, let name, key.receiptPath == ReportLogEntries.receiptDirectory + "/" + fileName
                else { return broken(path, "its entry is not the deletion outcome its file name says") }
                if isLatest { latest[name]?.proven = true } else { stale[name] = proof.index }
                return nil
            } catch {
                return broken(path, "\(error)")
            }
        }
        ReportFileReader.forEachName(in: receiptDirectory) { name, _ in
            guard name.hasSuffix(".tlog-proof") else { return }
            receipts += 1
            // One that sorts after the first broken found so far cannot be the one reported.
            if let first = firstBroken, first.name < name { return }
            if let problem = check(name) { firstBroken = (name, problem) }
        }
        if let firstBroken { return firstBroken.broken }
        // Only the deletions whose receipt is missing or stale are named again from their leaves (read in log
        // order), and the first by receipt name is reported.
        let unproven = latest.filter { !$0.value.proven }.map { ($0.key, $0.value.index) }
        var named: [(key: ReportLogEntries.DeletionKey, leaf: UInt64, held: UInt64?)] = []
        for (name, leaf) in unproven.sorted(by: { $0.1 < $1.1 }) {
            guard let entry = try? reader.entry(at: leaf), let key = ReportLogEntries.deletionKey(ofLeaf: entry) else {
                return broken("\(logDirectory) leaf \(leaf)", "cannot be read back")
            }
            named.append((key, leaf, stale[name]))
        }
        if let first = named.min(by: { $0.key < $1.key }) {
            let path = appDirectory + "/" + first.key.receiptPath
            guard let held = first.held else {
                return broken(path, "missing: deletion outcome leaf \(first.leaf) has no receipt")
            }
            return broken(path, "proves leaf \(held), not the deletion's latest outcome, leaf \(first.leaf)")
        }
        return .success(
            Verified(
                treeSize: size, receipts: receipts, verifierKey: key.text, keptCheckpointChecked: kept != nil))
    }

    /// The origin line of a checkpoint note, unverified: only to choose which app's log it is checked against.
    static func origin(ofCheckpoint bytes: [UInt8]) -> String? {
        guard let end = bytes.firstIndex(of: 0x0A), end > 0 else { return nil }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}

/// What the verifier keeps of a deletion's latest outcome leaf, inline (a `MerkleHash` holds its bytes on the
/// heap): its index, its leaf hash, and whether a receipt proved it.
private struct LatestLeaf {
    var index: UInt64
    var hash: LeafDigest
    var proven = false

    init(index: UInt64, hash: MerkleHash) {
        self.index = index
        self.hash = LeafDigest(hash)
    }
}

/// A 32-byte hash as four words.
private struct LeafDigest: Equatable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    init(_ hash: MerkleHash) {
        let bytes = hash.bytes
        func word(_ start: Int) -> UInt64 { bytes[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        words = (word(0), word(8), word(16), word(24))
    }

    static func == (lhs: LeafDigest, rhs: LeafDigest) -> Bool { lhs.words == rhs.words }
}
