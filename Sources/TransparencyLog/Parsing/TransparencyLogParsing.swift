/// One entry point that feeds bytes to every parser of outside input in this module, for fuzzers
/// (libFuzzer's `LLVMFuzzerTestOneInput`) and for tests that throw random and mutated bytes at them.
///
/// Every parser here is a pure function of its bytes that returns a value or throws a
/// ``TransparencyLogError``; none traps, allocates past a small multiple of its input, or loops without
/// consuming input.
public enum TransparencyLogParsing {
    /// What the parsers made of one input, so a caller can tell which ones accepted it.
    public struct Outcome: Hashable, Sendable {
        public var note = false
        public var checkpoint = false
        public var proof = false
        public var verifierKey = false
        public var tilePath = false
        public var hashTile = false
        public var entryBundle = false
    }

    public static func parseAll(_ bytes: [UInt8]) -> Outcome {
        var outcome = Outcome()
        let text = String(decoding: bytes, as: UTF8.self)
        if let note = try? SignedNote(parsing: bytes) {
            outcome.note = true
            // Checkpoints arrive as note texts; read them the way a verifier would.
            outcome.checkpoint = (try? Checkpoint(parsing: note.text)) != nil
        }
        if !outcome.checkpoint { outcome.checkpoint = (try? Checkpoint(parsing: text)) != nil }
        outcome.proof = (try? LogProof(parsing: bytes)) != nil
        outcome.verifierKey = (try? NoteVerifierKey(parsing: text)) != nil
        outcome.tilePath = (try? TilePath(parsing: text)) != nil
        let width = max(1, min(TilePath.fullWidth, bytes.count / MerkleHash.byteCount))
        let hashTile = TilePath(kind: .hashes(level: 0), index: 0, width: width)
        outcome.hashTile = (try? TileContent.parseHashTile(bytes, path: hashTile)) != nil
        let bundle = TilePath(kind: .entries, index: 0, width: Int(bytes.first ?? 0) % TilePath.fullWidth + 1)
        outcome.entryBundle = (try? TileContent.parseEntryBundle(bytes, path: bundle)) != nil
        return outcome
    }
}
