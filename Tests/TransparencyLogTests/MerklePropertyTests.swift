import Testing

@testable import TransparencyLog

/// Random trees: every proof the tree gives verifies, and any flipped bit, wrong index or wrong size fails.
@Suite("Merkle tree: properties of random trees")
struct MerklePropertyTests {
    /// The recursive definition of RFC 9162 §2.1.1, straight from the text, as an independent reference.
    static func referenceRoot(_ leaves: ArraySlice<MerkleHash>) -> MerkleHash {
        if leaves.isEmpty { return .emptyTree }
        if leaves.count == 1 { return leaves.first! }
        var split = 1
        while split * 2 < leaves.count { split *= 2 }
        let start = leaves.startIndex
        return MerkleHash.node(
            referenceRoot(leaves[start..<(start + split)]), referenceRoot(leaves[(start + split)...]))
    }

    static func randomLeaves(_ count: Int, seed: UInt64) -> [MerkleHash] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in MerkleHash.leaf(random.bytes(Int.random(in: 0...40, using: &random))) }
    }

    @Test("roots of every size up to 300 equal the recursive definition", arguments: [UInt64(1), 2])
    func rootsMatchReference(seed: UInt64) throws {
        let leaves = Self.randomLeaves(300, seed: seed)
        let tree = MerkleTree(source: LeafHashList(leafHashes: leaves))
        for size in 0...leaves.count {
            #expect(try tree.rootHash(size: UInt64(size)) == Self.referenceRoot(leaves[..<size]), "size \(size)")
        }
    }

    /// A changed tree size is not among the corruptions: a path for index i in size n can also be a valid path
    /// for i in some other size with the same root (size 3 and 4 share index 0's path shape), which is why a
    /// receipt is checked against the size its signed checkpoint states.
    @Test("every inclusion proof in every tree up to 70 leaves verifies; a flipped bit or wrong index fails")
    func inclusionProofs() throws {
        let leaves = Self.randomLeaves(70, seed: 3)
        let tree = MerkleTree(source: LeafHashList(leafHashes: leaves))
        var random = SplitMix64(seed: 4)
        for size in 1...UInt64(leaves.count) {
            let root = try tree.rootHash(size: size)
            for index in 0..<size {
                let proof = try tree.inclusionProof(index: index, size: size)
                let leaf = leaves[Int(index)]
                try proof.verify(leafHash: leaf, rootHash: root)
                for position in proof.hashes.indices {
                    var bad = proof
                    bad.hashes[position] = bad.hashes[position].flipping(bit: Int.random(in: 0..<256, using: &random))
                    #expect(throws: TransparencyLogError.self) { try bad.verify(leafHash: leaf, rootHash: root) }
                }
                #expect(throws: TransparencyLogError.self) {
                    try proof.verify(
                        leafHash: leaf.flipping(bit: Int.random(in: 0..<256, using: &random)), rootHash: root)
                }
                if size > 1 {
                    var moved = proof
                    moved.index = (index + 1) % size
                    #expect(throws: TransparencyLogError.self) { try moved.verify(leafHash: leaf, rootHash: root) }
                }
            }
        }
    }

    @Test("every consistency proof between sizes up to 70 verifies; a flipped bit or swapped root fails")
    func consistencyProofs() throws {
        let leaves = Self.randomLeaves(70, seed: 5)
        let tree = MerkleTree(source: LeafHashList(leafHashes: leaves))
        let roots = try (0...UInt64(leaves.count)).map { try tree.rootHash(size: $0) }
        var random = SplitMix64(seed: 6)
        for newSize in 0...UInt64(leaves.count) {
            for oldSize in 0...newSize {
                let proof = try tree.consistencyProof(from: oldSize, to: newSize)
                try proof.verify(oldRoot: roots[Int(oldSize)], newRoot: roots[Int(newSize)])
                for position in proof.hashes.indices {
                    var bad = proof
                    bad.hashes[position] = bad.hashes[position].flipping(bit: Int.random(in: 0..<256, using: &random))
                    #expect(throws: TransparencyLogError.self) {
                        try bad.verify(oldRoot: roots[Int(oldSize)], newRoot: roots[Int(newSize)])
                    }
                }
                guard oldSize > 0 else { continue }
                let error = #expect(throws: TransparencyLogError.self) {
                    try proof.verify(oldRoot: roots[Int(oldSize)].flipping(bit: 7), newRoot: roots[Int(newSize)])
                }
                #expect(error?.code == .rewrittenHistory)
                #expect(throws: TransparencyLogError.self) {
                    try proof.verify(oldRoot: roots[Int(oldSize)], newRoot: roots[Int(newSize)].flipping(bit: 7))
                }
            }
        }
    }

    @Test("proof generation refuses indices and sizes outside the tree")
    func argumentsChecked() throws {
        let tree = MerkleTree(source: LeafHashList(leafHashes: Self.randomLeaves(4, seed: 7)))
        #expect(throws: TransparencyLogError.self) { try tree.inclusionProof(index: 4, size: 4) }
        #expect(throws: TransparencyLogError.self) { try tree.inclusionProof(index: 0, size: 5) }
        #expect(throws: TransparencyLogError.self) { try tree.consistencyProof(from: 3, to: 2) }
        #expect(throws: TransparencyLogError.self) { try tree.rootHash(size: 5) }
    }
}
