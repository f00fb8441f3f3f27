/// Where a Merkle tree's hashes come from: stored tiles, an append-only level store, or a list in memory.
///
/// Every hash a proof or a root needs is the hash of a *complete* subtree — 2^height consecutive leaves,
/// aligned on a multiple of 2^height — so a source answers only that question and never needs the whole tree
/// in memory (RFC 9162 §2.1.1: any range MTH(D[k:n]) splits into complete subtrees).
public protocol MerkleHashSource {
    /// MTH(D[index·2^height : (index+1)·2^height]). Throws when the source lacks the hashes for that range.
    func subtreeHash(height: Int, index: UInt64) throws(TransparencyLogError) -> MerkleHash
}

/// Leaf hashes held in memory: for tests, small trees and cross-checks. Hashing a subtree costs its size.
public struct LeafHashList: MerkleHashSource, Sendable {
    public var leafHashes: [MerkleHash]

    public init(leafHashes: [MerkleHash]) { self.leafHashes = leafHashes }

    /// The leaf hashes of `entries`, in order.
    public init(entries: [[UInt8]]) { leafHashes = entries.map { MerkleHash.leaf($0) } }

    public func subtreeHash(height: Int, index: UInt64) throws(TransparencyLogError) -> MerkleHash {
        guard height >= 0, height < 63 else {
            throw TransparencyLogError(.invalidArgument, "subtree height \(height) is out of range")
        }
        let width = UInt64(1) << UInt64(height)
        let (start, overflow) = index.multipliedReportingOverflow(by: width)
        guard !overflow, start < UInt64(leafHashes.count), width <= UInt64(leafHashes.count) - start else {
            throw TransparencyLogError(
                .invalidArgument,
                "subtree \(index) at height \(height) lies past the \(leafHashes.count) leaves in memory")
        }
        return MerkleHash.perfectTreeRoot(leafHashes[Int(start)..<Int(start + width)])
    }
}
