import LifecycleCrypto

extension SignedNote {
    /// The trusted keys whose signatures on this note verify, in the order they first sign.
    ///
    /// c2sp.org/signed-note §Signatures: a signature whose name *and* key ID match a trusted key must verify,
    /// and one that fails rejects the whole note (the spec allows this; it is the safe reading for evidence);
    /// signatures by unknown keys — same name or same ID but not both — are ignored, which is how witnesses
    /// cosign and keys rotate; a note with no verified trusted signature is rejected.
    public func verifiedKeys(trusting keys: [NoteVerifierKey]) throws(TransparencyLogError) -> [NoteVerifierKey] {
        let trusted = Array(Set(keys))
        let message = Array(text.utf8)
        var verified: [NoteVerifierKey] = []
        for signature in signatures {
            let matches = trusted.filter { $0.name == signature.name && $0.keyID == signature.keyID }
            guard let key = matches.first else { continue }
            let identity = "\(signature.name)+\(NoteVerifierKey.hex(signature.keyID))"
            guard matches.count == 1 else {
                throw TransparencyLogError(.ambiguousKey, "two trusted keys are named \(identity)")
            }
            let publicKey = try key.publicKey()
            guard signature.signature.count == 64,
                publicKey.verify(signature: signature.signature, message: message)
            else {
                throw TransparencyLogError(
                    .invalidSignature, "the signature by trusted key \(identity) does not verify")
            }
            if !verified.contains(key) { verified.append(key) }
        }
        guard !verified.isEmpty else {
            let names = signatures.map { "\($0.name)+\(NoteVerifierKey.hex($0.keyID))" }.joined(separator: ", ")
            let trustedNames = trusted.map { "\($0.name)+\(NoteVerifierKey.hex($0.keyID))" }.sorted()
            throw TransparencyLogError(
                .noTrustedSignature,
                "no signature by a trusted key (signed by \(names); trusted: "
                    + "\(trustedNames.isEmpty ? "none" : trustedNames.joined(separator: ", ")))")
        }
        return verified
    }

    /// Signs `text` with each signer.
    public static func sign(text: String, with signers: [NoteSigner]) throws(TransparencyLogError) -> SignedNote {
        guard text.utf8.last == 0x0A else {
            throw TransparencyLogError(.malformedNote, "a note text ends with a newline")
        }
        var signatures: [NoteSignature] = []
        for signer in signers { signatures.append(try signer.sign(text: text)) }
        return SignedNote(text: text, signatures: signatures)
    }
}
