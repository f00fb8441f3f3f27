/// A checkpoint whose note carries a verified signature by a trusted log key.
///
/// The only way to get one from bytes is ``open(_:origin:trusting:)``, so holding a value means its size and
/// root may be relied on.
public struct SignedCheckpoint: Hashable, Sendable {
    public let checkpoint: Checkpoint
    public let note: SignedNote
    /// The trusted keys that signed it.
    public let signers: [NoteVerifierKey]

    /// The checkpoint file's bytes.
    public var bytes: [UInt8] { note.bytes }

    /// Verifies the signed note against `keys`, then parses its text as a checkpoint from `origin`.
    ///
    /// The signature is checked before the text is read (c2sp.org/signed-note: the text must be ignored until
    /// then); a checkpoint from another log is refused even when a trusted key signed it.
    public static func open(
        _ bytes: [UInt8], origin: String, trusting keys: [NoteVerifierKey]
    ) throws(TransparencyLogError) -> SignedCheckpoint {
        let note = try SignedNote(parsing: bytes)
        let signers = try note.verifiedKeys(trusting: keys)
        let checkpoint = try Checkpoint(parsing: note.text)
        guard checkpoint.origin == origin else {
            throw TransparencyLogError(
                .originMismatch, "the checkpoint is from log \"\(checkpoint.origin)\", expected \"\(origin)\"")
        }
        return SignedCheckpoint(checkpoint: checkpoint, note: note, signers: signers)
    }

    /// Signs `checkpoint` with `signer` (c2sp.org/tlog-checkpoint §Signatures).
    public static func sign(_ checkpoint: Checkpoint, with signer: NoteSigner) throws(TransparencyLogError)
        -> SignedCheckpoint
    {
        // An origin or extension holding a newline would sign a different checkpoint than the one given.
        guard (try? Checkpoint(parsing: checkpoint.text)) == checkpoint else {
            throw TransparencyLogError(
                .malformedCheckpoint, "origin and extension lines must be non-empty single lines")
        }
        let note = try SignedNote.sign(text: checkpoint.text, with: [signer])
        return SignedCheckpoint(checkpoint: checkpoint, note: note, signers: [signer.verifierKey])
    }

    private init(checkpoint: Checkpoint, note: SignedNote, signers: [NoteVerifierKey]) {
        self.checkpoint = checkpoint
        self.note = note
        self.signers = signers
    }
}
