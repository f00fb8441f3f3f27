/// What is wrong with a note, checkpoint, proof, tile or log directory: a stable machine `code` plus one line
/// of human context naming the file, field, index or tree sizes involved.
///
/// Descriptions never carry entry bytes: entries may be personal data, and a verifier's output ends up in
/// tickets and audit trails.
public struct TransparencyLogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable codes: scripts and `report verify` output match on these, so they never change meaning.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// A signed note that breaks c2sp.org/signed-note (encoding, separator, signature line syntax).
        case malformedNote = "malformed_note"
        /// A note text that is not a c2sp.org/tlog-checkpoint body.
        case malformedCheckpoint = "malformed_checkpoint"
        /// A c2sp.org/tlog-proof receipt that does not parse, or a proof of the wrong shape.
        case malformedProof = "malformed_proof"
        /// A verifier key string that is not `<name>+<hex key ID>+<base64(0x01 ‖ key)>`.
        case malformedKey = "malformed_key"
        /// A tile or entry bundle whose bytes or path break c2sp.org/tlog-tiles.
        case malformedTile = "malformed_tile"
        /// Two trusted keys share one name and key ID, so a signature cannot be attributed.
        case ambiguousKey = "ambiguous_key"
        /// A signature by a trusted key that does not verify.
        case invalidSignature = "invalid_signature"
        /// No signature by any trusted key: the note text must be ignored (c2sp.org/signed-note §Signatures).
        case noTrustedSignature = "no_trusted_signature"
        /// A checkpoint from a different log than the one expected.
        case originMismatch = "origin_mismatch"
        /// An entry that the proof does not place at its index in the signed tree.
        case inclusionFailed = "inclusion_failed"
        /// Tiles or a proof that lead to a different root than the signed checkpoint states.
        case rootMismatch = "root_mismatch"
        /// Two checkpoints of one log that no consistency proof joins: the log's history was rewritten.
        case rewrittenHistory = "rewritten_history"
        /// A tile or entry bundle the tree size requires but the directory lacks.
        case tileMissing = "tile_missing"
        /// A tile hash that disagrees with the tile below it, or an entry that disagrees with its leaf hash.
        case tileMismatch = "tile_mismatch"
        /// An argument outside what the operation accepts (an index past the tree size, an oversized entry).
        case invalidArgument = "invalid_argument"
        /// A file that cannot be read or written.
        case ioFailed = "io_failed"
        /// A cryptographic primitive that failed (key export, signing).
        case cryptoFailed = "crypto_failed"
    }

    public let code: Code
    public let description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
