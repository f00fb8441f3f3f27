/// A log's tree head as a note text (c2sp.org/tlog-checkpoint §Note text): the origin line, the tree size in
/// decimal, the base64 root hash, then optional extension lines.
public struct Checkpoint: Hashable, Sendable {
    /// The log's identity, e.g. `example.com/log42`; it should also be the signing key's name.
    public var origin: String
    public var size: UInt64
    public var rootHash: MerkleHash
    /// Opaque, non-empty lines after the root hash. Not recommended: monitors cannot audit them.
    public var extensions: [String]

    public init(origin: String, size: UInt64, rootHash: MerkleHash, extensions: [String] = []) {
        self.origin = origin
        self.size = size
        self.rootHash = rootHash
        self.extensions = extensions
    }

    /// The note text, every line ending in a newline.
    public var text: String {
        ([origin, String(size), rootHash.base64] + extensions).map { $0 + "\n" }.joined()
    }

    /// Parses a note text. Refuses fewer than three lines, any empty line, a size with a sign, leading zeroes
    /// or more than 64 bits, and a root that is not the base64 of 32 bytes. Never traps.
    public init(parsing text: String) throws(TransparencyLogError) {
        let bytes = Array(text.utf8)
        guard bytes.last == 0x0A else {
            throw TransparencyLogError(.malformedCheckpoint, "a checkpoint text ends with a newline")
        }
        let lines = bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
        guard lines.count >= 3 else {
            throw TransparencyLogError(
                .malformedCheckpoint,
                "a checkpoint has an origin, a tree size and a root hash line; found \(lines.count)")
        }
        if let empty = lines.firstIndex(where: { $0.isEmpty }) {
            throw TransparencyLogError(.malformedCheckpoint, "checkpoint line \(empty + 1) is empty")
        }
        guard let size = DecimalNumber.parse(lines[1]) else {
            throw TransparencyLogError(
                .malformedCheckpoint,
                "checkpoint tree size \"\(String(decoding: lines[1].prefix(32), as: UTF8.self))\" is not a decimal "
                    + "number without leading zeroes")
        }
        guard let root = MerkleHash(base64Bytes: lines[2]) else {
            throw TransparencyLogError(.malformedCheckpoint, "checkpoint root hash is not the base64 of 32 bytes")
        }
        origin = String(decoding: lines[0], as: UTF8.self)
        self.size = size
        rootHash = root
        extensions = lines.dropFirst(3).map { String(decoding: $0, as: UTF8.self) }
    }
}
