/// The right edge of a tiled log: everything needed to append without reading the rest of the tree.
///
/// For each level it keeps the hashes of the level's partial tile, and it keeps the entries of the partial
/// entry bundle. That is what the partial tiles of the last published size hold, so the state is read back
/// from them (``init(size:store:)``) and never stored anywhere else.
public struct TileLogState: Hashable, Sendable {
    public private(set) var size: UInt64
    /// `edges[l]`: hashes of the partial tile at level l (fewer than 256 each).
    var edges: [[MerkleHash]]
    /// Entries of the partial entry bundle, in log order.
    var pendingEntries: [[UInt8]]

    /// The empty log.
    public static let empty = TileLogState(size: 0, edges: [], pendingEntries: [])

    private init(size: UInt64, edges: [[MerkleHash]], pendingEntries: [[UInt8]]) {
        self.size = size
        self.edges = edges
        self.pendingEntries = pendingEntries
    }

    /// Reads the right edge of the log of `size` entries from its partial tiles and partial entry bundle.
    public init(size: UInt64, store: some TileStore) throws(TransparencyLogError) {
        var edges: [[MerkleHash]] = []
        for level in 0..<TileGeometry.levelCount(size: size) {
            let width = TileGeometry.partialWidth(level: level, size: size)
            guard width > 0 else {
                edges.append([])
                continue
            }
            let path = TilePath(
                kind: .hashes(level: level), index: TileGeometry.fullTileCount(level: level, size: size), width: width)
            guard let bytes = try store.read(path.path) else {
                throw TransparencyLogError(.tileMissing, "\(path) is missing (tree size \(size) needs it)")
            }
            edges.append(try TileContent.parseHashTile(bytes, path: path))
        }
        var pending: [[UInt8]] = []
        let width = TileGeometry.partialWidth(level: 0, size: size)
        if width > 0 {
            let path = TilePath(kind: .entries, index: TileGeometry.fullTileCount(level: 0, size: size), width: width)
            guard let bytes = try store.read(path.path) else {
                throw TransparencyLogError(.tileMissing, "\(path) is missing (tree size \(size) needs it)")
            }
            pending = try TileContent.parseEntryBundle(bytes, path: path)
            for (offset, entry) in pending.enumerated() where MerkleHash.leaf(entry) != edges[0][offset] {
                throw TransparencyLogError(
                    .tileMismatch,
                    "\(path) entry \(offset) does not hash to hash \(offset) of "
                        + "\(TilePath(kind: .hashes(level: 0), index: path.index, width: width))")
            }
        }
        self.init(size: size, edges: edges, pendingEntries: pending)
    }

    /// MTH of the whole log, from the edge alone: each level's partial hashes split into perfect subtrees by
    /// the binary digits of their count, and the subtrees, left to right, fold from the right (RFC 9162 §2.1.1).
    public var rootHash: MerkleHash {
        var pieces: [MerkleHash] = []
        for level in edges.indices.reversed() {
            var hashes = edges[level][...]
            var width = hashes.count
            var chunk = TilePath.fullWidth / 2
            while width > 0 {
                if width >= chunk {
                    pieces.append(MerkleHash.perfectTreeRoot(hashes.prefix(chunk)))
                    hashes = hashes.dropFirst(chunk)
                    width -= chunk
                }
                chunk /= 2
            }
        }
        guard var root = pieces.popLast() else { return .emptyTree }
        while let left = pieces.popLast() { root = MerkleHash.node(left, root) }
        return root
    }

    /// Appends `entries` and returns the files to publish for the new size: every tile and entry bundle that
    /// became full (written once, never again), and the partial ones of the new size. Files of the old size
    /// are never among them, so published history is never rewritten (c2sp.org/tlog-tiles: full tiles are
    /// immutable; partial tiles of each checkpointed size stay available). Every entry is checked before any
    /// is appended.
    public mutating func append(_ entries: [[UInt8]]) throws(TransparencyLogError) -> [TileFile] {
        for entry in entries { try Self.check(entry) }
        var files: [TileFile] = []
        let partial = try append(entries) { (file: TileFile) throws(TransparencyLogError) in files.append(file) }
        return files + partial
    }

    /// The same, one entry at a time, for more entries than should be in memory at once: each tile and entry
    /// bundle that becomes full is handed to `full` as soon as it does (and can be written and let go), and
    /// the partial ones of the new size are returned at the end. An entry too long for a bundle stops the
    /// append there, the state holding the entries before it.
    public mutating func append<Entries: Sequence<[UInt8]>>(
        _ entries: Entries, full: (TileFile) throws(TransparencyLogError) -> Void
    ) throws(TransparencyLogError) -> [TileFile] {
        let oldSize = size
        for entry in entries {
            try Self.check(entry)
            guard size < UInt64.max else {
                throw TransparencyLogError(.invalidArgument, "the log cannot grow past 2^64 entries")
            }
            pendingEntries.append(entry)
            if pendingEntries.count == TilePath.fullWidth {
                let path = TilePath(kind: .entries, index: (size + 1) / UInt64(TilePath.fullWidth) - 1)
                try full(TileFile(path: path, bytes: try TileContent.entryBundle(pendingEntries)))
                pendingEntries.removeAll(keepingCapacity: true)
            }
            try push(MerkleHash.leaf(entry), level: 0, full: full)
            size += 1
        }
        var files: [TileFile] = []
        // Partial tiles of the new size, where they differ from the old size's.
        for level in edges.indices where !edges[level].isEmpty {
            let path = TilePath(
                kind: .hashes(level: level), index: TileGeometry.fullTileCount(level: level, size: size),
                width: edges[level].count)
            if TileGeometry.tile(.hashes(level: level), index: path.index, size: oldSize) != path {
                files.append(TileFile(path: path, bytes: TileContent.hashTile(edges[level])))
            }
        }
        if !pendingEntries.isEmpty {
            let path = TilePath(
                kind: .entries, index: TileGeometry.fullTileCount(level: 0, size: size), width: pendingEntries.count)
            if TileGeometry.tile(.entries, index: path.index, size: oldSize) != path {
                files.append(TileFile(path: path, bytes: try TileContent.entryBundle(pendingEntries)))
            }
        }
        return files
    }

    private static func check(_ entry: [UInt8]) throws(TransparencyLogError) {
        guard entry.count <= TileContent.maximumEntryByteCount else {
            throw TransparencyLogError(
                .invalidArgument,
                "a log entry of \(entry.count) bytes exceeds the \(TileContent.maximumEntryByteCount) an entry bundle "
                    + "holds")
        }
    }

    /// Adds a hash to `level`; a tile that fills is handed to `full` and its root carried to the level above.
    private mutating func push(
        _ hash: MerkleHash, level: Int, full: (TileFile) throws(TransparencyLogError) -> Void
    ) throws(TransparencyLogError) {
        if edges.count == level { edges.append([]) }
        edges[level].append(hash)
        guard edges[level].count == TilePath.fullWidth else { return }
        // The leaves before this hash's tile, in units of this level's tiles.
        let tileSpan = UInt64(8 * (level + 1))
        let index = (size + 1) >> tileSpan - 1
        let tile = edges[level]
        try full(TileFile(path: TilePath(kind: .hashes(level: level), index: index), bytes: TileContent.hashTile(tile)))
        edges[level].removeAll(keepingCapacity: true)
        try push(MerkleHash.perfectTreeRoot(tile[...]), level: level + 1, full: full)
    }
}

/// One file a log append produces.
public struct TileFile: Hashable, Sendable {
    public var path: TilePath
    public var bytes: [UInt8]

    public init(path: TilePath, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }
}
