import LifecycleCrypto

/// A trusted Ed25519 note key: its name, its 32-bit key ID and its public key.
///
/// The text form is the verifier key of golang.org/x/mod/sumdb/note, which C2SP logs and witnesses share:
/// `<name>+<key ID as 8 hex digits>+<base64(0x01 ‖ 32-byte public key)>`, e.g.
/// `PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW`. An auditor gets this string out of
/// band and hands it to the verifier; keys are never taken from the files being verified.
public struct NoteVerifierKey: Hashable, Sendable, CustomStringConvertible {
    /// c2sp.org/signed-note §Signature types: `0x01` is Ed25519.
    public static let ed25519SignatureType: UInt8 = 0x01

    public let name: String
    public let keyID: UInt32
    /// The 32 raw Ed25519 public key bytes (RFC 8032 §5.1.5).
    public let publicKeyBytes: [UInt8]

    /// Builds the key for `publicKey` under `name`; the key ID is derived, never chosen.
    public init(name: String, publicKey: Ed25519PublicKey) throws(TransparencyLogError) {
        let raw: [UInt8]
        do { raw = try publicKey.rawBytes() } catch {
            throw TransparencyLogError(.cryptoFailed, "cannot export the note public key: \(error)")
        }
        try self.init(name: name, publicKeyBytes: raw)
    }

    init(name: String, publicKeyBytes: [UInt8]) throws(TransparencyLogError) {
        guard NoteKeyName.isValid(name) else {
            throw TransparencyLogError(
                .malformedKey, "note key name \"\(name)\" must be non-empty without spaces or \"+\"")
        }
        guard publicKeyBytes.count == Ed25519PublicKey.rawByteCount else {
            throw TransparencyLogError(.malformedKey, "an Ed25519 note key is 32 bytes, not \(publicKeyBytes.count)")
        }
        self.name = name
        self.publicKeyBytes = publicKeyBytes
        keyID = Self.keyID(name: name, encodedKey: [Self.ed25519SignatureType] + publicKeyBytes)
    }

    /// A key with a stated ID, unchecked: only for tests that model a forged key-ID collision.
    init(name: String, keyID: UInt32, publicKeyBytes: [UInt8]) {
        self.name = name
        self.keyID = keyID
        self.publicKeyBytes = publicKeyBytes
    }

    /// Parses `<name>+<8 hex digits>+<base64(0x01 ‖ key)>` and checks that the stated key ID is the one the name
    /// and key produce, so a mistyped or swapped key string is refused rather than silently trusted.
    public init(parsing text: String) throws(TransparencyLogError) {
        // The name and key ID hold no "+", the base64 key may: split at the first two only.
        let fields = Array(text.utf8).split(
            separator: UInt8(ascii: "+"), maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else {
            throw TransparencyLogError(.malformedKey, "a verifier key is <name>+<8 hex digits>+<base64 key>")
        }
        let name = String(decoding: fields[0], as: UTF8.self)
        let hex = Array(fields[1])
        guard hex.count == 8, let statedID = Self.parseHex32(hex) else {
            throw TransparencyLogError(.malformedKey, "verifier key \"\(name)\": the key ID is not 8 hex digits")
        }
        guard let encoded = StandardBase64.decode(bytes: fields[2]), let algorithm = encoded.first else {
            throw TransparencyLogError(.malformedKey, "verifier key \"\(name)\": the key is not base64")
        }
        guard algorithm == Self.ed25519SignatureType else {
            throw TransparencyLogError(
                .malformedKey, "verifier key \"\(name)\": signature type \(algorithm) is not Ed25519 (1)")
        }
        try self.init(name: name, publicKeyBytes: Array(encoded.dropFirst()))
        guard keyID == statedID else {
            throw TransparencyLogError(
                .malformedKey,
                "verifier key \"\(name)\": key ID \(Self.hex(statedID)) does not match its key "
                    + "(expected \(Self.hex(keyID)))")
        }
    }

    /// The verifier key string that ``init(parsing:)`` reads.
    public var text: String {
        "\(name)+\(Self.hex(keyID))+\(StandardBase64.encode([Self.ed25519SignatureType] + publicKeyBytes))"
    }

    public var description: String { text }

    /// The key as a usable OpenSSL key.
    func publicKey() throws(TransparencyLogError) -> Ed25519PublicKey {
        do { return try Ed25519PublicKey(rawBytes: publicKeyBytes) } catch {
            throw TransparencyLogError(.malformedKey, "note key \(name): \(error)")
        }
    }

    /// key ID = SHA-256(key name ‖ 0x0A ‖ signature type ‖ public key)[:4], big-endian (c2sp.org/signed-note
    /// §Signatures, §Ed25519 signatures).
    static func keyID(name: String, encodedKey: [UInt8]) -> UInt32 {
        let digest = SHA256.hash(Array(name.utf8) + [0x0A] + encodedKey)
        return digest.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let bytes = (0..<8).map { digits[Int(value >> UInt32(28 - 4 * $0) & 0xF)] }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func parseHex32(_ text: [UInt8]) -> UInt32? {
        var value: UInt32 = 0
        for character in text {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }
}
