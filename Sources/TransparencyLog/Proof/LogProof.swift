/// An offline-verifiable receipt that an entry is in a log (c2sp.org/tlog-proof, `.tlog-proof` files):
///
/// ```
/// c2sp.org/tlog-proof@v1
/// extra <base64>          (optional, unauthenticated)
/// index <decimal>
/// <base64 hash>           (zero or more: the inclusion proof, leaf's sibling first)
///
/// <the signed checkpoint, verbatim>
/// ```
public struct LogProof: Hashable, Sendable {
    public static let header = "c2sp.org/tlog-proof@v1"

    /// Opaque extra data. Not authenticated by the proof: trust it only after checking it against the entry.
    public var extra: [UInt8]?
    public var index: UInt64
    public var hashes: [MerkleHash]
    /// The signed checkpoint note the proof is against, as the log published it.
    public var checkpoint: [UInt8]

    public init(extra: [UInt8]? = nil, index: UInt64, hashes: [MerkleHash], checkpoint: [UInt8]) {
        self.extra = extra
        self.index = index
        self.hashes = hashes
        self.checkpoint = checkpoint
    }

    public var bytes: [UInt8] {
        var lines = [Self.header]
        if let extra { lines.append("extra " + StandardBase64.encode(extra)) }
        lines.append("index \(index)")
        lines += hashes.map(\.base64)
        return Array((lines.joined(separator: "\n") + "\n\n").utf8) + checkpoint
    }

    /// Parses the proof text (c2sp.org/tlog-proof §Format). The checkpoint is kept as bytes; ``verify(entry:origin:trusting:)``
    /// opens it. Never traps.
    public init(parsing bytes: [UInt8]) throws(TransparencyLogError) {
        var lines: [ArraySlice<UInt8>] = []
        var cursor = 0
        var separatorFound = false
        while cursor < bytes.count {
            guard let end = bytes[cursor...].firstIndex(of: 0x0A) else { break }
            let line = bytes[cursor..<end]
            cursor = end + 1
            if line.isEmpty {
                separatorFound = true
                break
            }
            lines.append(line)
        }
        guard separatorFound else {
            throw TransparencyLogError(.malformedProof, "a tlog-proof needs an empty line before its checkpoint")
        }
        guard lines.first.map(Array.init) == Array(Self.header.utf8) else {
            throw TransparencyLogError(.malformedProof, "a tlog-proof starts with the line \(Self.header)")
        }
        var position = 1
        var extra: [UInt8]?
        let extraPrefix = Array("extra ".utf8)
        if position < lines.count, lines[position].starts(with: extraPrefix) {
            guard let decoded = StandardBase64.decode(bytes: lines[position].dropFirst(extraPrefix.count)) else {
                throw TransparencyLogError(.malformedProof, "the tlog-proof extra data is not base64")
            }
            extra = decoded
            position += 1
        }
        let indexPrefix = Array("index ".utf8)
        guard position < lines.count, lines[position].starts(with: indexPrefix),
            let index = DecimalNumber.parse(lines[position].dropFirst(indexPrefix.count))
        else {
            throw TransparencyLogError(
                .malformedProof, "a tlog-proof has an \"index <decimal>\" line after its header (no leading zeroes)")
        }
        var hashes: [MerkleHash] = []
        for (offset, line) in lines[(position + 1)...].enumerated() {
            guard hashes.count < 64 else {
                throw TransparencyLogError(.malformedProof, "a tlog-proof of more than 64 hashes joins no tree")
            }
            guard let hash = MerkleHash(base64Bytes: line) else {
                throw TransparencyLogError(
                    .malformedProof, "tlog-proof hash \(offset + 1) is not the base64 of 32 bytes")
            }
            hashes.append(hash)
        }
        self.init(extra: extra, index: index, hashes: hashes, checkpoint: Array(bytes[cursor...]))
    }

    /// Checks the receipt: the checkpoint is signed by a trusted key of log `origin`, and `entry` is at
    /// ``index`` of its tree (RFC 9162 §2.1.3.2). Returns the verified checkpoint.
    public func verify(
        entry: [UInt8], origin: String, trusting keys: [NoteVerifierKey]
    ) throws(TransparencyLogError) -> SignedCheckpoint {
        let signed = try SignedCheckpoint.open(checkpoint, origin: origin, trusting: keys)
        try verify(entry: entry, against: signed)
        return signed
    }

    /// Checks that `entry` is at ``index`` of the tree of `signed`, a checkpoint already opened and verified
    /// (many receipts of one log carry the same one); refuses a checkpoint other than the receipt's own.
    public func verify(entry: [UInt8], against signed: SignedCheckpoint) throws(TransparencyLogError) {
        guard signed.bytes == checkpoint else {
            throw TransparencyLogError(.invalidArgument, "the receipt is against another checkpoint")
        }
        let proof = InclusionProof(index: index, treeSize: signed.checkpoint.size, hashes: hashes)
        try proof.verify(leafHash: MerkleHash.leaf(entry), rootHash: signed.checkpoint.rootHash)
    }
}
