/// The bytes of tiles and entry bundles (c2sp.org/tlog-tiles): a hash tile is its hashes concatenated; an
/// entry bundle is each entry prefixed with its length as a big-endian uint16.
public enum TileContent {
    /// The largest entry an entry bundle can hold.
    public static let maximumEntryByteCount = Int(UInt16.max)

    public static func hashTile(_ hashes: [MerkleHash]) -> [UInt8] { hashes.flatMap(\.bytes) }

    /// Splits a hash tile, refusing a length that is not `path.width` hashes.
    public static func parseHashTile(_ bytes: [UInt8], path: TilePath) throws(TransparencyLogError) -> [MerkleHash] {
        guard bytes.count == path.width * MerkleHash.byteCount else {
            throw TransparencyLogError(
                .malformedTile,
                "\(path): \(bytes.count) bytes, a tile of \(path.width) hashes is \(path.width * MerkleHash.byteCount)")
        }
        return stride(from: 0, to: bytes.count, by: MerkleHash.byteCount).map {
            MerkleHash(bytes: Array(bytes[$0..<($0 + MerkleHash.byteCount)]))!
        }
    }

    public static func entryBundle(_ entries: [[UInt8]]) throws(TransparencyLogError) -> [UInt8] {
        var out: [UInt8] = []
        for entry in entries {
            guard entry.count <= maximumEntryByteCount else {
                throw TransparencyLogError(
                    .invalidArgument,
                    "a log entry of \(entry.count) bytes exceeds the \(maximumEntryByteCount) an entry bundle holds")
            }
            out.append(UInt8(entry.count >> 8))
            out.append(UInt8(entry.count & 0xFF))
            out.append(contentsOf: entry)
        }
        return out
    }

    /// Splits an entry bundle, refusing a truncated entry, trailing bytes, or a count other than `path.width`.
    public static func parseEntryBundle(_ bytes: [UInt8], path: TilePath) throws(TransparencyLogError) -> [[UInt8]] {
        var entries: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 2 else {
                throw TransparencyLogError(.malformedTile, "\(path): a length prefix is cut off at byte \(offset)")
            }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard bytes.count - offset >= length else {
                throw TransparencyLogError(
                    .malformedTile,
                    "\(path): entry \(entries.count) needs \(length) bytes, \(bytes.count - offset) remain")
            }
            entries.append(Array(bytes[offset..<(offset + length)]))
            offset += length
            guard entries.count <= path.width else { break }
        }
        guard entries.count == path.width else {
            let found = entries.count > path.width ? "more than \(path.width)" : "\(entries.count)"
            throw TransparencyLogError(.malformedTile, "\(path): holds \(found) entries, its width is \(path.width)")
        }
        return entries
    }
}
