/// A Merkle audit path: the hashes that join one leaf to the root of a tree of `treeSize` leaves.
public struct InclusionProof: Hashable, Sendable {
    public var index: UInt64
    public var treeSize: UInt64
    /// Leaf's sibling first, the root's child last (RFC 9162 §2.1.3.1; c2sp.org/tlog-proof uses the same order).
    public var hashes: [MerkleHash]

    public init(index: UInt64, treeSize: UInt64, hashes: [MerkleHash]) {
        self.index = index
        self.treeSize = treeSize
        self.hashes = hashes
    }

    /// The root this path leads to from `leafHash`, or nil when the path has the wrong length for the index
    /// and size — the algorithm of RFC 9162 §2.1.3.2, steps 1–4.
    public func root(fromLeafHash leafHash: MerkleHash) -> MerkleHash? {
        guard index < treeSize else { return nil }
        var fn = index
        var sn = treeSize - 1
        var result = leafHash
        for hash in hashes {
            guard sn != 0 else { return nil }
            if fn & 1 == 1 || fn == sn {
                result = MerkleHash.node(hash, result)
                while fn & 1 == 0, fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                result = MerkleHash.node(result, hash)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { return nil }
        return result
    }

    /// Checks that `leafHash` sits at ``index`` in the tree of ``treeSize`` leaves whose root is `rootHash`
    /// (RFC 9162 §2.1.3.2). The error says whether the path was malformed or led to another root.
    public func verify(leafHash: MerkleHash, rootHash: MerkleHash) throws(TransparencyLogError) {
        guard index < treeSize else {
            throw TransparencyLogError(
                .inclusionFailed, "index \(index) is not below tree size \(treeSize): no entry can be included")
        }
        guard let computed = root(fromLeafHash: leafHash) else {
            throw TransparencyLogError(
                .inclusionFailed,
                "an inclusion proof for index \(index) in a tree of size \(treeSize) cannot have "
                    + "\(hashes.count) hashes")
        }
        guard computed == rootHash else {
            throw TransparencyLogError(
                .inclusionFailed,
                "entry \(index) is not in the tree of size \(treeSize) with root \(rootHash): "
                    + "its proof leads to root \(computed)")
        }
    }
}
