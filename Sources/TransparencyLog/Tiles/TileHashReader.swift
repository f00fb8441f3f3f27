import Synchronization

/// Reads a tiled log as published at one tree size, and answers Merkle hash questions from its tiles.
///
/// Any complete subtree of height h = 8·l + r is the perfect tree over 2^r consecutive hashes of one level-l
/// tile (c2sp.org/tlog-tiles §Merkle Tree: "the Merkle Tree levels between those expressed by the tile hashes
/// are reconstructed by hashing"), so roots and proofs for every size up to ``treeSize`` come from a handful
/// of tiles. A partial tile that is gone (a log may delete it once the full tile exists) is read from the
/// wider tile instead. Recently read tiles are kept in a small cache together with the levels hashed within
/// them, so a run of proofs over neighbouring leaves (a report's receipts) hashes each tile once, not once per
/// proof.
public final class TileHashReader: MerkleHashSource, Sendable {
    public let store: any TileStore
    /// The size of the tree whose tiles this reader reads: proofs and roots up to this size.
    public let treeSize: UInt64
    /// Per tile: its hashes, then each level above them within the tile (`[r]` holds the roots of the
    /// complete subtrees of 2^r of its hashes).
    private let cache = Mutex<[TilePath: [[MerkleHash]]]>([:])
    private let cacheLimit: Int
    /// The entry bundle read last, by index: leaves are read in order (a verifier's walk, receipts), so one
    /// bundle serves 256 reads instead of being read and parsed for each.
    private let lastBundle = Mutex<(index: UInt64, entries: [[UInt8]])?>(nil)

    public init(store: any TileStore, treeSize: UInt64, cacheLimit: Int = 64) {
        self.store = store
        self.treeSize = treeSize
        self.cacheLimit = cacheLimit
    }

    /// The tree over this reader's tiles.
    public var tree: MerkleTree<TileHashReader> { MerkleTree(source: self) }

    public func subtreeHash(height: Int, index: UInt64) throws(TransparencyLogError) -> MerkleHash {
        guard height >= 0, height < 64 else {
            throw TransparencyLogError(.invalidArgument, "subtree height \(height) is out of range")
        }
        let level = height / TileGeometry.bitsPerLevel
        let within = height % TileGeometry.bitsPerLevel
        let span = UInt64(1) << UInt64(within)
        // Position of the subtree's first hash among level-`level` hashes, and the tile that holds it.
        let (first, overflow) = index.multipliedReportingOverflow(by: span)
        guard !overflow else {
            throw TransparencyLogError(.invalidArgument, "subtree \(index) at height \(height) is past any tree")
        }
        let tileIndex = first >> UInt64(TileGeometry.bitsPerLevel)
        let offset = Int(first & 0xFF)
        let levels = try tileLevels(level: level, index: tileIndex)
        guard offset + Int(span) <= levels[0].count else {
            throw TransparencyLogError(
                .invalidArgument,
                "subtree \(index) at height \(height) is not complete in a tree of size \(treeSize)")
        }
        return levels[within][offset >> within]
    }

    /// The hashes of tile `index` at `level` as published at ``treeSize``.
    public func tileHashes(level: Int, index: UInt64) throws(TransparencyLogError) -> [MerkleHash] {
        try tileLevels(level: level, index: index)[0]
    }

    /// The hashes of tile `index` at `level`, then the levels hashed above them within the tile
    /// (``MerkleHash/levels(_:)``; for a full tile the last level is its root).
    func tileLevels(level: Int, index: UInt64) throws(TransparencyLogError) -> [[MerkleHash]] {
        guard (0...TilePath.maximumLevel).contains(level),
            let path = TileGeometry.tile(.hashes(level: level), index: index, size: treeSize)
        else {
            throw TransparencyLogError(
                .invalidArgument, "a tree of size \(treeSize) has no tile \(index) at level \(level)")
        }
        if let cached = cache.withLock({ $0[path] }) { return cached }
        let hashes: [MerkleHash]
        if let bytes = try store.read(path.path) {
            hashes = try TileContent.parseHashTile(bytes, path: path)
        } else if !path.isFull, let bytes = try store.read(path.full.path) {
            // The log has grown and dropped the partial tile; the full one starts with the same hashes.
            hashes = Array(try TileContent.parseHashTile(bytes, path: path.full).prefix(path.width))
        } else {
            throw TransparencyLogError(.tileMissing, "\(path) is missing (tree size \(treeSize) needs it)")
        }
        let levels = MerkleHash.levels(hashes)
        cache.withLock {
            if $0.count >= cacheLimit { $0.removeAll(keepingCapacity: true) }
            $0[path] = levels
        }
        return levels
    }

    /// The entries of bundle `index` as published at ``treeSize``.
    public func entries(bundle index: UInt64) throws(TransparencyLogError) -> [[UInt8]] {
        guard let path = TileGeometry.tile(.entries, index: index, size: treeSize) else {
            throw TransparencyLogError(.invalidArgument, "a tree of size \(treeSize) has no entry bundle \(index)")
        }
        if let bytes = try store.read(path.path) { return try TileContent.parseEntryBundle(bytes, path: path) }
        if !path.isFull, let bytes = try store.read(path.full.path) {
            return Array(try TileContent.parseEntryBundle(bytes, path: path.full).prefix(path.width))
        }
        throw TransparencyLogError(.tileMissing, "\(path) is missing (tree size \(treeSize) needs it)")
    }

    /// The entry at log index `index`.
    public func entry(at index: UInt64) throws(TransparencyLogError) -> [UInt8] {
        guard index < treeSize else {
            throw TransparencyLogError(.invalidArgument, "index \(index) is not below tree size \(treeSize)")
        }
        let bundle = index >> 8
        if let last = lastBundle.withLock({ $0 }), last.index == bundle { return last.entries[Int(index & 0xFF)] }
        let entries = try entries(bundle: bundle)
        lastBundle.withLock { $0 = (bundle, entries) }
        return entries[Int(index & 0xFF)]
    }
}
