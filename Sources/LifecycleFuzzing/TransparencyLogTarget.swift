import TransparencyLog

/// The files of a report log an auditor fetches (``TransparencyLogParsing``): signed notes and checkpoints
/// (C2SP signed-note, tlog-checkpoint), receipts (inclusion proofs), verifier keys, tile paths, hash tiles and
/// entry bundles (tlog-tiles).
///
/// Properties: no parser traps on any bytes; what is accepted re-serialises to text that parses back to the
/// same value (note, checkpoint, receipt, verifier key, tile path).
enum TransparencyLogTarget {
    static let target = FuzzTarget(
        name: "transparency-log",
        summary:
            "report log notes, checkpoints, receipts, keys, tile paths and tiles: no trap, accepted values round-trip",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        _ = TransparencyLogParsing.parseAll(bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        if let note = try? SignedNote(parsing: bytes) {
            guard let again = try? SignedNote(parsing: note.bytes) else {
                throw PropertyFailure("a note's bytes do not parse back")
            }
            try require(again.text == note.text && again.signatures == note.signatures, "a note changed on reparse")
        }
        if let checkpoint = try? Checkpoint(parsing: text) {
            guard let again = try? Checkpoint(parsing: checkpoint.text) else {
                throw PropertyFailure("a checkpoint's text does not parse back")
            }
            try require(
                again.origin == checkpoint.origin && again.size == checkpoint.size
                    && again.rootHash == checkpoint.rootHash && again.extensions == checkpoint.extensions,
                "a checkpoint changed on reparse")
        }
        if let proof = try? LogProof(parsing: bytes) {
            guard let again = try? LogProof(parsing: proof.bytes) else {
                throw PropertyFailure("a receipt's bytes do not parse back")
            }
            try require(
                again.index == proof.index && again.hashes == proof.hashes && again.checkpoint == proof.checkpoint
                    && again.extra == proof.extra,
                "a receipt changed on reparse")
        }
        if let key = try? NoteVerifierKey(parsing: text) {
            guard let again = try? NoteVerifierKey(parsing: key.text) else {
                throw PropertyFailure("a verifier key's text does not parse back")
            }
            try require(
                again.name == key.name && again.keyID == key.keyID && again.publicKeyBytes == key.publicKeyBytes,
                "a verifier key changed on reparse")
        }
        if let path = try? TilePath(parsing: text) {
            guard let again = try? TilePath(parsing: path.path) else {
                throw PropertyFailure("tile path \(path.path) does not parse back")
            }
            try require(again == path, "tile path \(path.path) changed on reparse")
        }
    }
}
