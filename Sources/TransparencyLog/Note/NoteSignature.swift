/// One signature line of a signed note: `— <key name> base64(key ID ‖ signature)` (c2sp.org/signed-note
/// §Signatures).
public struct NoteSignature: Hashable, Sendable {
    public var name: String
    /// The big-endian uint32 that opens the decoded signature.
    public var keyID: UInt32
    /// The signature bytes after the key ID (64 for Ed25519).
    public var signature: [UInt8]

    public init(name: String, keyID: UInt32, signature: [UInt8]) {
        self.name = name
        self.keyID = keyID
        self.signature = signature
    }

    /// The line without its newline: em dash, space, name, space, base64.
    public var line: String {
        let id: [UInt8] = [
            UInt8(keyID >> 24), UInt8(keyID >> 16 & 0xFF), UInt8(keyID >> 8 & 0xFF), UInt8(keyID & 0xFF),
        ]
        return "\u{2014} \(name) \(StandardBase64.encode(id + signature))"
    }
}
