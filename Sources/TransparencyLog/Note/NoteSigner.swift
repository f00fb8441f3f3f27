import LifecycleCrypto

/// Signs note texts with an Ed25519 key under a key name (c2sp.org/signed-note §Ed25519 signatures).
///
/// For a checkpoint the name should be the log's origin line (c2sp.org/tlog-checkpoint §Signatures).
public struct NoteSigner: Sendable {
    public let verifierKey: NoteVerifierKey
    private let privateKey: Ed25519PrivateKey

    public init(name: String, privateKey: Ed25519PrivateKey) throws(TransparencyLogError) {
        verifierKey = try NoteVerifierKey(name: name, publicKey: privateKey.publicKey)
        self.privateKey = privateKey
    }

    public var name: String { verifierKey.name }

    /// The signature line for `text`: the key ID and a PureEdDSA signature over the whole text, final newline
    /// included (c2sp.org/signed-note §Format).
    public func sign(text: String) throws(TransparencyLogError) -> NoteSignature {
        let signature: [UInt8]
        do { signature = try privateKey.sign(Array(text.utf8)) } catch {
            throw TransparencyLogError(.cryptoFailed, "cannot sign the note: \(error)")
        }
        return NoteSignature(name: name, keyID: verifierKey.keyID, signature: signature)
    }
}
