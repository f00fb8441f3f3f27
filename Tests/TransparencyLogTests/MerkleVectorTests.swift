import Foundation
import Testing

@testable import TransparencyLog

/// RFC 6962 / RFC 9162 tree heads and proofs against vectors published by other implementations
/// (`Fixtures/README.md`).
@Suite("Merkle tree: published RFC 6962 vectors and a real CT log")
struct MerkleVectorTests {
    let vectors: TreeVectors
    let tree: MerkleTree<LeafHashList>

    init() throws {
        vectors = try TreeVectors.load()
        tree = MerkleTree(source: LeafHashList(entries: vectors.leafEntries))
    }

    @Test("the tree head of every size 0 through 8 is the published root")
    func rootsMatch() throws {
        for size in 0...UInt64(vectors.leaves.count) {
            #expect(try tree.rootHash(size: size) == vectors.root(size), "size \(size)")
        }
        #expect(MerkleHash.emptyTree == vectors.root(0))
    }

    @Test("generated inclusion proofs equal the published ones and verify against the published roots")
    func inclusionProofs() throws {
        for vector in vectors.inclusion {
            let proof = try tree.inclusionProof(index: vector.index, size: vector.size)
            #expect(proof.hashes == vector.proof.map(MerkleHash.hex), "index \(vector.index) size \(vector.size)")
            let leaf = MerkleHash.leaf(vectors.leafEntries[Int(vector.index)])
            try proof.verify(leafHash: leaf, rootHash: vectors.root(vector.size))
        }
    }

    @Test("generated consistency proofs equal the published ones and verify against the published roots")
    func consistencyProofs() throws {
        for vector in vectors.consistency {
            let proof = try tree.consistencyProof(from: vector.size1, to: vector.size2)
            #expect(proof.hashes == vector.proof.map(MerkleHash.hex), "\(vector.size1) → \(vector.size2)")
            try proof.verify(oldRoot: vectors.root(vector.size1), newRoot: vectors.root(vector.size2))
        }
    }

    /// transparency-dev/merkle's proofgen corruptions, applied to each published inclusion proof.
    @Test("every corruption of a published inclusion proof fails to verify")
    func corruptedInclusionProofsFail() throws {
        let someHash = MerkleHash.hex("abacaba000000000000000000000000000000000000000000060061e00123456")
        for vector in vectors.inclusion {
            let hashes = vector.proof.map(MerkleHash.hex)
            let leaf = MerkleHash.leaf(vectors.leafEntries[Int(vector.index)])
            let root = vectors.root(vector.size)
            var bad: [(String, InclusionProof, MerkleHash, MerkleHash)] = [
                ("index + 1", .init(index: vector.index + 1, treeSize: vector.size, hashes: hashes), leaf, root),
                ("index ^ 2", .init(index: vector.index ^ 2, treeSize: vector.size, hashes: hashes), leaf, root),
                ("size × 2", .init(index: vector.index, treeSize: vector.size * 2, hashes: hashes), leaf, root),
                ("size ÷ 2", .init(index: vector.index, treeSize: vector.size / 2, hashes: hashes), leaf, root),
                ("wrong leaf", .init(index: vector.index, treeSize: vector.size, hashes: hashes), .leaf([0x57]), root),
                ("empty root", .init(index: vector.index, treeSize: vector.size, hashes: hashes), leaf, .emptyTree),
                ("random root", .init(index: vector.index, treeSize: vector.size, hashes: hashes), leaf, someHash),
                (
                    "trailing root", .init(index: vector.index, treeSize: vector.size, hashes: hashes + [root]), leaf,
                    root
                ),
                (
                    "preceding root", .init(index: vector.index, treeSize: vector.size, hashes: [root] + hashes), leaf,
                    root
                ),
            ]
            if vector.index > 0 {
                bad.append(
                    ("index - 1", .init(index: vector.index - 1, treeSize: vector.size, hashes: hashes), leaf, root))
            }
            for position in hashes.indices {
                var flipped = hashes
                flipped[position] = flipped[position].flipping(bit: 3)
                bad.append(
                    (
                        "bit flip @\(position)", .init(index: vector.index, treeSize: vector.size, hashes: flipped),
                        leaf, root
                    ))
            }
            if !hashes.isEmpty {
                bad.append(
                    (
                        "removed", .init(index: vector.index, treeSize: vector.size, hashes: hashes.dropLast()), leaf,
                        root
                    ))
            }
            if hashes.count > 1 {
                let inserted = [hashes[0], someHash] + hashes.dropFirst()
                bad.append(
                    ("inserted", .init(index: vector.index, treeSize: vector.size, hashes: inserted), leaf, root))
            }
            for (what, proof, leafHash, rootHash) in bad {
                #expect(throws: TransparencyLogError.self, "\(what) for index \(vector.index) size \(vector.size)") {
                    try proof.verify(leafHash: leafHash, rootHash: rootHash)
                }
            }
        }
    }

    @Test("every corruption of a published consistency proof fails to verify")
    func corruptedConsistencyProofsFail() throws {
        let someHash = MerkleHash.hex("abacaba000000000000000000000000000000000000000000060061e00123456")
        for vector in vectors.consistency {
            let hashes = vector.proof.map(MerkleHash.hex)
            let old = vectors.root(vector.size1)
            let new = vectors.root(vector.size2)
            var bad: [(String, ConsistencyProof, MerkleHash, MerkleHash)] = [
                ("old size × 2", .init(oldSize: vector.size1 * 2, newSize: vector.size2, hashes: hashes), old, new),
                ("new size × 2", .init(oldSize: vector.size1, newSize: vector.size2 * 2, hashes: hashes), old, new),
                ("swapped roots", .init(oldSize: vector.size1, newSize: vector.size2, hashes: hashes), new, old),
                ("random old root", .init(oldSize: vector.size1, newSize: vector.size2, hashes: hashes), someHash, new),
                (
                    "empty new root", .init(oldSize: vector.size1, newSize: vector.size2, hashes: hashes), old,
                    .emptyTree
                ),
                (
                    "trailing hash", .init(oldSize: vector.size1, newSize: vector.size2, hashes: hashes + [someHash]),
                    old, new
                ),
                (
                    "preceding hash", .init(oldSize: vector.size1, newSize: vector.size2, hashes: [someHash] + hashes),
                    old, new
                ),
            ]
            if old == new { bad.removeAll { $0.0 == "swapped roots" } }
            if vector.size1 * 2 == vector.size2 { bad.removeAll { $0.0 == "old size × 2" } }
            for position in hashes.indices {
                var flipped = hashes
                flipped[position] = flipped[position].flipping(bit: 4)
                bad.append(
                    (
                        "bit flip @\(position)", .init(oldSize: vector.size1, newSize: vector.size2, hashes: flipped),
                        old, new
                    ))
            }
            if !hashes.isEmpty {
                bad.append(
                    (
                        "removed", .init(oldSize: vector.size1, newSize: vector.size2, hashes: hashes.dropLast()), old,
                        new
                    ))
            }
            for (what, proof, oldRoot, newRoot) in bad {
                #expect(throws: TransparencyLogError.self, "\(what) for \(vector.size1) → \(vector.size2)") {
                    try proof.verify(oldRoot: oldRoot, newRoot: newRoot)
                }
            }
        }
    }

    @Test("a real Certificate Transparency log's audit path and consistency proof verify (Argon 2020)")
    func argon2020() throws {
        struct TreeHead: Decodable {
            var tree_size: UInt64
            var sha256_root_hash: String
        }
        struct Entries: Decodable {
            struct Entry: Decodable { var leaf_input: String }
            var entries: [Entry]
        }
        struct AuditPath: Decodable {
            var leaf_index: UInt64
            var audit_path: [String]
        }
        struct Consistency: Decodable { var consistency: [String] }
        let head = try Fixtures.decode(TreeHead.self, "ct-argon2020/sth.json")
        let entry = try Fixtures.decode(Entries.self, "ct-argon2020/entries.json").entries[0]
        let path = try Fixtures.decode(AuditPath.self, "ct-argon2020/proof.json")
        let consistency = try Fixtures.decode(Consistency.self, "ct-argon2020/consistency.json")
        let root = MerkleHash.b64(head.sha256_root_hash)
        let leaf = MerkleHash.leaf([UInt8](Data(base64Encoded: entry.leaf_input)!))

        let inclusion = InclusionProof(
            index: path.leaf_index, treeSize: head.tree_size, hashes: path.audit_path.map(MerkleHash.b64))
        try inclusion.verify(leafHash: leaf, rootHash: root)
        var wrongIndex = inclusion
        wrongIndex.index += 1
        #expect(throws: TransparencyLogError.self) { try wrongIndex.verify(leafHash: leaf, rootHash: root) }

        let oldRoot = MerkleHash.b64("AuIZ5V6sDUj1vn3Y1K85oOaQ7y+FJJKtyRTl1edIKBQ=")
        let proof = ConsistencyProof(
            oldSize: 3_654_490, newSize: head.tree_size, hashes: consistency.consistency.map(MerkleHash.b64))
        try proof.verify(oldRoot: oldRoot, newRoot: root)
        let error = #expect(throws: TransparencyLogError.self) {
            try proof.verify(oldRoot: oldRoot.flipping(bit: 0), newRoot: root)
        }
        #expect(error?.code == .rewrittenHistory)
        #expect(error?.description.contains("checkpoint sizes 3654490 and 961984013") == true)
    }
}
