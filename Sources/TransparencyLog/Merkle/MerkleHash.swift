import LifecycleCrypto

/// A SHA-256 Merkle Tree Hash (RFC 9162 §2.1.1, RFC 6962 §2.1): the hash of a leaf, of an interior node or of
/// a whole tree. Always 32 bytes.
public struct MerkleHash: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 32

    /// The 32 hash bytes.
    public let bytes: [UInt8]

    /// Nil unless `bytes` is exactly 32 bytes long.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// Decodes the padded standard base64 (RFC 4648 §4) that checkpoints and tlog-proof lines use.
    public init?(base64: String) {
        guard let bytes = StandardBase64.decode(base64) else { return nil }
        self.init(bytes: bytes)
    }

    init?<Bytes: Collection<UInt8>>(base64Bytes: Bytes) {
        guard let bytes = StandardBase64.decode(bytes: base64Bytes) else { return nil }
        self.init(bytes: bytes)
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Padded standard base64, as a checkpoint's root hash line (c2sp.org/tlog-checkpoint) writes it.
    public var base64: String { StandardBase64.encode(bytes) }

    public var description: String { base64 }

    /// MTH({}) = SHA-256() — the root of the empty tree (RFC 9162 §2.1.1).
    public static let emptyTree = MerkleHash(unchecked: SHA256.hash([]))

    /// MTH({d}) = SHA-256(0x00 ‖ d) — the leaf hash of one log entry (RFC 9162 §2.1.1). The 0x00 prefix keeps a
    /// leaf from ever being mistaken for an interior node (second-preimage resistance, RFC 9162 §2.1.1).
    public static func leaf<Entry: Collection<UInt8>>(_ entry: Entry) -> MerkleHash {
        var input: [UInt8] = [0x00]
        input.reserveCapacity(entry.count + 1)
        input.append(contentsOf: entry)
        return MerkleHash(unchecked: SHA256.hash(input))
    }

    /// SHA-256(0x01 ‖ left ‖ right) — an interior node (RFC 9162 §2.1.1).
    public static func node(_ left: MerkleHash, _ right: MerkleHash) -> MerkleHash {
        var input: [UInt8] = [0x01]
        input.reserveCapacity(1 + 2 * byteCount)
        input.append(contentsOf: left.bytes)
        input.append(contentsOf: right.bytes)
        return MerkleHash(unchecked: SHA256.hash(input))
    }

    /// The root of a perfect subtree whose leaves-level hashes are `hashes` (a power-of-two count, at least 1):
    /// how a tile's 256 hashes become the hash one level up (c2sp.org/tlog-tiles §Merkle Tree).
    static func perfectTreeRoot(_ hashes: ArraySlice<MerkleHash>) -> MerkleHash {
        levels(Array(hashes)).last![0]
    }

    /// `hashes`, then each level above them: `[r]` holds the node hashes of the complete subtrees of 2^r of
    /// `hashes`, left to right (a last hash without a partner is not carried up); the last level has one hash.
    static func levels(_ hashes: [MerkleHash]) -> [[MerkleHash]] {
        var levels = [hashes]
        while levels[levels.count - 1].count > 1 {
            let below = levels[levels.count - 1]
            levels.append((0..<(below.count / 2)).map { node(below[2 * $0], below[2 * $0 + 1]) })
        }
        return levels
    }
}
