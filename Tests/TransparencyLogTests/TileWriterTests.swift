import Testing

@testable import TransparencyLog

/// The tile writer against an in-memory reference: random batches, every tile and proof checked.
@Suite("Tiles: append-only writer and reader")
struct TileWriterTests {
    static func entries(_ count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            Array("entry \(index) ".utf8) + random.bytes(Int.random(in: 0...24, using: &random))
        }
    }

    /// Appends `all` in random batches, checking after each one; returns the store and every size published.
    static func publish(_ all: [[UInt8]], seed: UInt64, maxBatch: Int) throws -> (MemoryTileStore, [UInt64]) {
        let store = MemoryTileStore()
        var random = SplitMix64(seed: seed)
        var state = TileLogState.empty
        var sizes: [UInt64] = [0]
        var published = 0
        var fullTilesWritten: Set<String> = []
        while published < all.count {
            let count = min(all.count - published, Int.random(in: 1...maxBatch, using: &random))
            // The state is always read back from the store, as a restarted publisher would.
            state = try TileLogState(size: UInt64(published), store: store)
            let files = try state.append(Array(all[published..<(published + count)]))
            for file in files {
                #expect(store.paths.contains(file.path.path) == false, "\(file.path) written twice")
                if file.path.isFull { fullTilesWritten.insert(file.path.path) }
                try store.write(file.path.path, file.bytes)
            }
            published += count
            sizes.append(UInt64(published))
            let reference = MerkleTree(source: LeafHashList(entries: Array(all[..<published])))
            #expect(state.size == UInt64(published))
            #expect(state.rootHash == (try reference.rootHash(size: UInt64(published))), "size \(published)")
        }
        #expect(Set(store.writes).count == store.writes.count, "a path was written twice")
        return (store, sizes)
    }

    @Test(
        "appending in random batches matches the in-memory tree at every size and writes each path once",
        arguments: [(UInt64(1), 40), (2, 300), (3, 700)])
    func randomBatches(seed: UInt64, maxBatch: Int) throws {
        let all = Self.entries(1500, seed: seed)
        let (store, sizes) = try Self.publish(all, seed: seed &+ 100, maxBatch: maxBatch)
        let reference = MerkleTree(source: LeafHashList(entries: all))
        var random = SplitMix64(seed: seed &+ 200)
        for size in sizes where size > 0 {
            // Tiles as published at this size (partials of this size, full tiles of later ones) give the same
            // roots and proofs as the reference tree.
            let reader = TileHashReader(store: store, treeSize: size)
            #expect(try reader.tree.rootHash(size: size) == reference.rootHash(size: size), "size \(size)")
            let index = UInt64.random(in: 0..<size, using: &random)
            #expect(
                try reader.tree.inclusionProof(index: index, size: size)
                    == reference.inclusionProof(index: index, size: size))
            let old = UInt64.random(in: 0...size, using: &random)
            #expect(
                try reader.tree.consistencyProof(from: old, to: size) == reference.consistencyProof(from: old, to: size)
            )
            #expect(try reader.entry(at: index) == all[Int(index)])
        }
        // The final reader answers for every earlier size too.
        let last = TileHashReader(store: store, treeSize: UInt64(all.count))
        for size in sizes {
            #expect(try last.tree.rootHash(size: size) == reference.rootHash(size: size))
        }
    }

    @Test("a tree of exactly 65,536 entries has full tiles at levels 0 and 1 and a 1-wide tile at level 2")
    func twoFullLevels() throws {
        let count = 65_536
        let all = (0..<count).map { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        let store = MemoryTileStore()
        var state = TileLogState.empty
        for file in try state.append(all) { try store.write(file.path.path, file.bytes) }
        #expect(store.paths.contains("tile/0/255"))
        #expect(store.paths.contains("tile/1/000"))
        #expect(store.paths.contains("tile/2/000.p/1"))
        #expect(store.paths.contains("tile/entries/255"))
        #expect(!store.paths.contains { $0.hasPrefix("tile/0/") && $0.contains(".p/") })
        let reference = MerkleTree(source: LeafHashList(entries: all))
        let reader = TileHashReader(store: store, treeSize: UInt64(count))
        #expect(try reader.tree.rootHash(size: UInt64(count)) == reference.rootHash(size: UInt64(count)))
        #expect(state.rootHash == (try reference.rootHash(size: UInt64(count))))
        for index: UInt64 in [0, 255, 256, 40_000, 65_535] {
            #expect(
                try reader.tree.inclusionProof(index: index, size: 65_536)
                    == reference.inclusionProof(index: index, size: 65_536))
        }
        #expect(
            try reader.tree.consistencyProof(from: 70, to: 65_536) == reference.consistencyProof(from: 70, to: 65_536))
    }

    @Test(
        "one reader proves every leaf of a run in order to the reference root, reading each tile once",
        arguments: [UInt64(700), UInt64(1_500)])
    func everyLeafInOrder(size: UInt64) throws {
        let all = Self.entries(Int(size), seed: 11)
        let store = MemoryTileStore()
        var state = TileLogState.empty
        for file in try state.append(all) { try store.write(file.path.path, file.bytes) }
        let root = try MerkleTree(source: LeafHashList(entries: all)).rootHash(size: size)
        let reader = TileHashReader(store: store, treeSize: size)
        let before = store.reads
        // A report's receipts: every leaf, in order, against one tree size. Each proof takes subtree roots at
        // every height within the tiles, so this checks the levels the reader hashes above each tile's hashes.
        // An audit path is the only one that leads from its leaf to the root (RFC 9162 §2.1.3.2), so checking
        // each against the reference root checks every hash of it, in O(log n) rather than the reference
        // tree's O(n) per proof.
        let run = Array(0..<size)
        for index in run {
            let proof = try reader.tree.inclusionProof(index: index, size: size)
            #expect(throws: Never.self, "leaf \(index)") {
                try proof.verify(leafHash: MerkleHash.leaf(all[Int(index)]), rootHash: root)
            }
        }
        // The tiles: 3 or 6 at level 0 and 1 at level 1, each read once, not once per proof.
        #expect(store.reads - before <= run.count / 256 + 2, "\(store.reads - before) reads for \(run.count) proofs")
    }

    @Test("a reader falls back to the full tile when a partial tile was pruned")
    func partialFallback() throws {
        let all = Self.entries(600, seed: 9)
        let (store, _) = try Self.publish(all, seed: 10, maxBatch: 100)
        let reference = MerkleTree(source: LeafHashList(entries: all))
        for path in store.paths where path.hasPrefix("tile/0/000.p/") || path.hasPrefix("tile/entries/000.p/") {
            store.remove(path)
        }
        let reader = TileHashReader(store: store, treeSize: 600)
        for size: UInt64 in [1, 100, 255, 256, 599] {
            #expect(try reader.tree.rootHash(size: size) == reference.rootHash(size: size))
        }
    }

    @Test("one entry at a time, each full tile is handed over as it fills; the files are the batch append's")
    func streamedAppend() throws {
        // 70,000 entries: full level-0 and level-1 tiles and entry bundles, partial ones at every level.
        let all = Self.entries(70_000, seed: 9)
        var batch = TileLogState.empty
        let expected = try batch.append(all)
        var streamed = TileLogState.empty
        var handed: [TileFile] = []
        var entriesRead = 0
        // A sequence read lazily, so the test sees when each full file is handed over.
        let lazily = all.lazy.map { entry in
            entriesRead += 1
            return entry
        }
        let partial = try streamed.append(lazily) { (file: TileFile) throws(TransparencyLogError) in
            #expect(file.path.isFull)
            // A full tile is handed over as soon as its last entry is read, not at the end.
            let covered = file.path.kind == .entries ? 256 : 256 << (8 * Self.level(file.path))
            #expect(entriesRead == Int(file.path.index + 1) * covered, "\(file.path)")
            handed.append(file)
        }
        #expect(partial.allSatisfy { !$0.path.isFull } && !partial.isEmpty)
        #expect(handed + partial == expected)
        #expect(streamed == batch)
    }

    static func level(_ path: TilePath) -> Int {
        if case .hashes(let level) = path.kind { return level }
        return 0
    }

    @Test("an entry too large for a bundle is refused before anything is written")
    func oversizedEntry() throws {
        var state = TileLogState.empty
        let error = #expect(throws: TransparencyLogError.self) {
            try state.append([[1], Array(repeating: 0, count: 65_536)])
        }
        #expect(error?.code == .invalidArgument)
        #expect(state == .empty)
    }

    @Test("a missing or truncated tile is named by its path")
    func missingTileNamed() throws {
        let all = Self.entries(300, seed: 11)
        let (store, _) = try Self.publish(all, seed: 12, maxBatch: 300)
        store.remove("tile/0/001.p/44")
        let error = #expect(throws: TransparencyLogError.self) { try TileLogState(size: 300, store: store) }
        #expect(error?.code == .tileMissing)
        #expect(error?.description.contains("tile/0/001.p/44") == true)
        try store.write("tile/0/000", Array(repeating: 0, count: 100))
        let reader = TileHashReader(store: store, treeSize: 300)
        let short = #expect(throws: TransparencyLogError.self) { try reader.tree.rootHash(size: 200) }
        #expect(short?.code == .malformedTile)
        #expect(short?.description.contains("tile/0/000") == true)
    }
}
