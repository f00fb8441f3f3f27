/// Tree heads and proofs of the RFC 9162 Merkle tree over any ``MerkleHashSource``.
///
/// Generation follows the recursive definitions of RFC 9162 §2.1.1 (MTH), §2.1.3.1 (PATH) and §2.1.4.1
/// (PROOF/SUBPROOF). Every range the recursion visits starts on a multiple of its split point, so each left
/// part is one complete subtree read from the source and each right part splits again: a proof reads
/// O(log² n) complete-subtree hashes and holds none of the tree itself.
public struct MerkleTree<Source: MerkleHashSource> {
    public let source: Source

    public init(source: Source) { self.source = source }

    /// MTH(D[0:size]); SHA-256() for the empty tree.
    public func rootHash(size: UInt64) throws(TransparencyLogError) -> MerkleHash {
        guard size > 0 else { return .emptyTree }
        return try rangeHash(start: 0, end: size)
    }

    /// The audit path for the leaf at `index` in the tree of `size` leaves (RFC 9162 §2.1.3.1), leaf's sibling
    /// first.
    public func inclusionProof(index: UInt64, size: UInt64) throws(TransparencyLogError) -> InclusionProof {
        guard index < size else {
            throw TransparencyLogError(.invalidArgument, "index \(index) is not below tree size \(size)")
        }
        var hashes: [MerkleHash] = []
        try path(index: index, start: 0, end: size, into: &hashes)
        return InclusionProof(index: index, treeSize: size, hashes: hashes)
    }

    /// The proof that the tree of `oldSize` leaves is a prefix of the tree of `newSize` (RFC 9162 §2.1.4.1).
    /// Empty when the sizes are equal or the old tree is empty.
    public func consistencyProof(
        from oldSize: UInt64, to newSize: UInt64
    ) throws(TransparencyLogError) -> ConsistencyProof {
        guard oldSize <= newSize else {
            throw TransparencyLogError(.invalidArgument, "old tree size \(oldSize) exceeds new tree size \(newSize)")
        }
        var hashes: [MerkleHash] = []
        if oldSize > 0, oldSize < newSize {
            try subproof(oldCount: oldSize, start: 0, end: newSize, oldIsWholeSubtree: true, into: &hashes)
        }
        return ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: hashes)
    }

    /// MTH(D[start:end]) where `start` is a multiple of the largest power of two below `end - start`.
    func rangeHash(start: UInt64, end: UInt64) throws(TransparencyLogError) -> MerkleHash {
        let count = end - start
        if count & (count - 1) == 0 {
            let height = count.trailingZeroBitCount
            return try source.subtreeHash(height: height, index: start >> UInt64(height))
        }
        let split = TreeMath.largestPowerOfTwo(below: count)
        let left = try rangeHash(start: start, end: start + split)
        let right = try rangeHash(start: start + split, end: end)
        return MerkleHash.node(left, right)
    }

    /// PATH(m, D[start:end]) appended leaf-side first.
    private func path(
        index: UInt64, start: UInt64, end: UInt64, into hashes: inout [MerkleHash]
    ) throws(TransparencyLogError) {
        guard end - start > 1 else { return }
        let split = TreeMath.largestPowerOfTwo(below: end - start)
        if index - start < split {
            try path(index: index, start: start, end: start + split, into: &hashes)
            hashes.append(try rangeHash(start: start + split, end: end))
        } else {
            try path(index: index, start: start + split, end: end, into: &hashes)
            hashes.append(try rangeHash(start: start, end: start + split))
        }
    }

    /// SUBPROOF(m, D[start:end], b) of RFC 9162 §2.1.4.1, with `oldCount` = m relative to `start`.
    private func subproof(
        oldCount: UInt64, start: UInt64, end: UInt64, oldIsWholeSubtree: Bool, into hashes: inout [MerkleHash]
    ) throws(TransparencyLogError) {
        let count = end - start
        if oldCount == count {
            if !oldIsWholeSubtree { hashes.append(try rangeHash(start: start, end: end)) }
            return
        }
        let split = TreeMath.largestPowerOfTwo(below: count)
        if oldCount <= split {
            try subproof(
                oldCount: oldCount, start: start, end: start + split, oldIsWholeSubtree: oldIsWholeSubtree,
                into: &hashes)
            hashes.append(try rangeHash(start: start + split, end: end))
        } else {
            try subproof(
                oldCount: oldCount - split, start: start + split, end: end, oldIsWholeSubtree: false, into: &hashes)
            hashes.append(try rangeHash(start: start, end: start + split))
        }
    }
}

enum TreeMath {
    /// The largest power of two strictly below `count` (count ≥ 2): the split point k of RFC 9162 §2.1.1.
    static func largestPowerOfTwo(below count: UInt64) -> UInt64 {
        UInt64(1) << UInt64(63 - (count - 1).leadingZeroBitCount)
    }
}
