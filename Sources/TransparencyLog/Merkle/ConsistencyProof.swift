/// The proof that a tree of `oldSize` leaves is a prefix of the tree of `newSize` leaves: the log only grew.
public struct ConsistencyProof: Hashable, Sendable {
    public var oldSize: UInt64
    public var newSize: UInt64
    public var hashes: [MerkleHash]

    public init(oldSize: UInt64, newSize: UInt64, hashes: [MerkleHash]) {
        self.oldSize = oldSize
        self.newSize = newSize
        self.hashes = hashes
    }

    /// Checks the proof against both roots with the algorithm of RFC 9162 §2.1.4.2. Equal sizes need equal roots
    /// and an empty proof; the empty tree is a prefix of every tree. Any failure is named as rewritten history
    /// between the two sizes, because two signed heads that no proof joins mean the log showed two histories.
    public func verify(oldRoot: MerkleHash, newRoot: MerkleHash) throws(TransparencyLogError) {
        let sizes = "checkpoint sizes \(oldSize) and \(newSize)"
        guard oldSize <= newSize else {
            throw TransparencyLogError(
                .rewrittenHistory, "rewritten history: the log shrank between \(sizes) (a log only grows)")
        }
        if oldSize == newSize {
            guard hashes.isEmpty else {
                throw TransparencyLogError(.malformedProof, "a consistency proof between equal \(sizes) is empty")
            }
            guard oldRoot == newRoot else {
                throw TransparencyLogError(
                    .rewrittenHistory,
                    "rewritten history: two checkpoints of size \(oldSize) have different roots \(oldRoot) "
                        + "and \(newRoot)")
            }
            return
        }
        if oldSize == 0 {
            guard hashes.isEmpty else {
                throw TransparencyLogError(.malformedProof, "a consistency proof from the empty tree is empty")
            }
            return
        }
        guard let (first, second) = roots(oldRoot: oldRoot) else {
            throw TransparencyLogError(
                .rewrittenHistory,
                "rewritten history: consistency between \(sizes) fails (a proof of \(hashes.count) hashes "
                    + "cannot join these sizes)")
        }
        guard first == oldRoot else {
            throw TransparencyLogError(
                .rewrittenHistory,
                "rewritten history: consistency between \(sizes) fails (the proof rebuilds old root \(first), "
                    + "the old checkpoint says \(oldRoot))")
        }
        guard second == newRoot else {
            throw TransparencyLogError(
                .rewrittenHistory,
                "rewritten history: consistency between \(sizes) fails (the proof rebuilds new root \(second), "
                    + "the new checkpoint says \(newRoot))")
        }
    }

    /// RFC 9162 §2.1.4.2 steps 2–7: the (old, new) roots the proof rebuilds, nil when its length is wrong.
    private func roots(oldRoot: MerkleHash) -> (MerkleHash, MerkleHash)? {
        var path = hashes
        if oldSize & (oldSize - 1) == 0 { path.insert(oldRoot, at: 0) }
        guard let seed = path.first else { return nil }
        var fn = oldSize - 1
        var sn = newSize - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = seed
        var sr = seed
        for hash in path.dropFirst() {
            guard sn != 0 else { return nil }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleHash.node(hash, fr)
                sr = MerkleHash.node(hash, sr)
                while fn & 1 == 0, fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                sr = MerkleHash.node(sr, hash)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { return nil }
        return (fr, sr)
    }
}
