/// Checks a published tiled log the way an outside auditor would, and names what is wrong.
///
/// Keys come from the caller (out of band), never from the directory. ``audit(keptCheckpoint:)`` checks the
/// checkpoint's signature and origin; every tile against the tile above it; every entry against its leaf
/// hash; the root the tiles give against the signed root; and, given a checkpoint the auditor kept from an
/// earlier visit, that the current tree extends it (RFC 9162 §2.1.4). ``verifyReceipt(_:entry:)`` checks a
/// tlog-proof receipt.
public struct LogAuditor: Sendable {
    public let store: any TileStore
    public let origin: String
    public let trustedKeys: [NoteVerifierKey]

    public init(store: any TileStore, origin: String, trusting keys: [NoteVerifierKey]) {
        self.store = store
        self.origin = origin
        trustedKeys = keys
    }

    public init(directory: String, origin: String, trusting keys: [NoteVerifierKey]) {
        self.init(store: DirectoryTileStore(directory: directory), origin: origin, trusting: keys)
    }

    /// The outcome of an audit: invalid is an expected result, not a thrown error.
    public struct Report: Sendable {
        /// The current checkpoint, when its signature verified.
        public var checkpoint: SignedCheckpoint?
        /// Everything found wrong, in the order found; at most ``LogAuditor/problemLimit`` of them.
        public var problems: [TransparencyLogError] = []
        public var tilesChecked = 0
        public var entriesChecked: UInt64 = 0

        public var isValid: Bool { checkpoint != nil && problems.isEmpty }

        /// Adds a problem; false once the list is full and the audit should stop.
        mutating func record(_ problem: TransparencyLogError) -> Bool {
            problems.append(problem)
            return problems.count < LogAuditor.problemLimit
        }
    }

    /// An audit stops listing problems past this many: one rewritten tile can break thousands of checks.
    public static let problemLimit = 20

    public func audit(keptCheckpoint: [UInt8]? = nil) -> Report {
        var report = Report()
        let current: SignedCheckpoint
        do {
            guard let bytes = try store.read(LogPublisher.checkpointPath) else {
                _ = report.record(TransparencyLogError(.tileMissing, "the log has no checkpoint file"))
                return report
            }
            current = try SignedCheckpoint.open(bytes, origin: origin, trusting: trustedKeys)
        } catch {
            _ = report.record(error)
            return report
        }
        report.checkpoint = current
        let size = current.checkpoint.size
        let reader = TileHashReader(store: store, treeSize: size)
        guard checkTiles(reader, report: &report), checkEntries(reader, report: &report) else { return report }
        do {
            let root = try reader.tree.rootHash(size: size)
            if root != current.checkpoint.rootHash {
                guard
                    report.record(
                        TransparencyLogError(
                            .rootMismatch,
                            "root mismatch: the tiles give root \(root) for size \(size), the checkpoint says "
                                + "\(current.checkpoint.rootHash)"))
                else { return report }
            }
            if let keptCheckpoint {
                let kept = try SignedCheckpoint.open(keptCheckpoint, origin: origin, trusting: trustedKeys)
                try verifyConsistency(from: kept, to: current, reader: reader)
            }
        } catch {
            _ = report.record(error)
        }
        return report
    }

    /// Checks that `new` extends `old` with a consistency proof computed from the tiles of `new`'s size.
    /// Fails with `rewrittenHistory` naming both sizes when it does not.
    public func verifyConsistency(from old: SignedCheckpoint, to new: SignedCheckpoint) throws(TransparencyLogError) {
        try verifyConsistency(from: old, to: new, reader: TileHashReader(store: store, treeSize: new.checkpoint.size))
    }

    private func verifyConsistency(
        from old: SignedCheckpoint, to new: SignedCheckpoint, reader: TileHashReader
    ) throws(TransparencyLogError) {
        let oldSize = old.checkpoint.size
        let newSize = new.checkpoint.size
        guard oldSize <= newSize else {
            throw TransparencyLogError(
                .rewrittenHistory,
                "rewritten history: the kept checkpoint has size \(oldSize), the current one \(newSize) (a log only "
                    + "grows)")
        }
        let proof = try reader.tree.consistencyProof(from: oldSize, to: newSize)
        try proof.verify(oldRoot: old.checkpoint.rootHash, newRoot: new.checkpoint.rootHash)
    }

    /// Checks a tlog-proof receipt: signed by a trusted key of this log, and `entry` (or, when nil, the
    /// receipt's extra data) included at its index. Needs no tiles.
    public func verifyReceipt(_ bytes: [UInt8], entry: [UInt8]? = nil) throws(TransparencyLogError) -> SignedCheckpoint
    {
        var opened: [[UInt8]: SignedCheckpoint] = [:]
        return try verifyReceipt(LogProof(parsing: bytes), entry: entry, opened: &opened)
    }

    /// The same check of a parsed receipt. `opened` holds the checkpoints already verified, by their bytes: a
    /// receipt against one of them has only its inclusion proof checked, so the receipts of one append (which
    /// all carry its checkpoint) cost one signature check, not one each.
    public func verifyReceipt(
        _ proof: LogProof, entry: [UInt8]? = nil, opened: inout [[UInt8]: SignedCheckpoint]
    ) throws(TransparencyLogError) -> SignedCheckpoint {
        guard let entry = entry ?? proof.extra else {
            throw TransparencyLogError(.invalidArgument, "the receipt carries no entry and none was given")
        }
        if let signed = opened[proof.checkpoint] {
            try proof.verify(entry: entry, against: signed)
            return signed
        }
        let signed = try proof.verify(entry: entry, origin: origin, trusting: trustedKeys)
        opened[proof.checkpoint] = signed
        return signed
    }

    /// Every tile of every level is present and well formed, and every full tile hashes to its entry in the
    /// tile above (c2sp.org/tlog-tiles: level l+1 hashes are the Merkle hashes of full level-l tiles).
    private func checkTiles(_ reader: TileHashReader, report: inout Report) -> Bool {
        let size = reader.treeSize
        let levels = TileGeometry.levelCount(size: size)
        for level in 0..<levels {
            let fullCount = TileGeometry.fullTileCount(level: level, size: size)
            let total = fullCount + (TileGeometry.partialWidth(level: level, size: size) > 0 ? 1 : 0)
            var index: UInt64 = 0
            while index < total {
                defer { index += 1 }
                let path = TileGeometry.tile(.hashes(level: level), index: index, size: size)!
                do {
                    // The reader hashes a tile's levels as it reads it: the last one is the full tile's root.
                    let tileLevels = try reader.tileLevels(level: level, index: index)
                    report.tilesChecked += 1
                    guard index < fullCount, level + 1 < levels else { continue }
                    let parentIndex = index >> 8
                    let parent = try reader.tileHashes(level: level + 1, index: parentIndex)
                    let position = Int(index & 0xFF)
                    if tileLevels[tileLevels.count - 1][0] != parent[position] {
                        let parentPath = TileGeometry.tile(.hashes(level: level + 1), index: parentIndex, size: size)!
                        guard
                            report.record(
                                TransparencyLogError(
                                    .tileMismatch,
                                    "\(path) does not hash to hash \(position) of \(parentPath): one of the two "
                                        + "tiles was changed"))
                        else { return false }
                    }
                } catch {
                    guard report.record(error) else { return false }
                }
            }
        }
        return true
    }

    /// Every entry in the bundles hashes to the leaf hash at its index in the level-0 tiles.
    private func checkEntries(_ reader: TileHashReader, report: inout Report) -> Bool {
        let size = reader.treeSize
        let bundles = (size + 255) >> 8
        var bundle: UInt64 = 0
        while bundle < bundles {
            defer { bundle += 1 }
            let path = TileGeometry.tile(.entries, index: bundle, size: size)!
            do {
                let entries = try reader.entries(bundle: bundle)
                let leaves = try reader.tileHashes(level: 0, index: bundle)
                for (offset, entry) in entries.enumerated() where MerkleHash.leaf(entry) != leaves[offset] {
                    let tile = TileGeometry.tile(.hashes(level: 0), index: bundle, size: size)!
                    guard
                        report.record(
                            TransparencyLogError(
                                .tileMismatch,
                                "\(path) entry \(offset) (log index \(bundle << 8 + UInt64(offset))) does not hash to "
                                    + "hash \(offset) of \(tile): the entry or its leaf hash was changed"))
                    else { return false }
                }
                report.entriesChecked += UInt64(entries.count)
            } catch {
                guard report.record(error) else { return false }
            }
        }
        return true
    }
}
