import LifecycleCrypto
import Testing

@Suite("AES-256-GCM")
struct AESGCMTests {
    /// The GCM specification's test case 16 (McGrew and Viega, "The Galois/Counter Mode of Operation", also in
    /// NIST's GCM validation vectors): AES-256, a 96-bit IV, 60 bytes of plaintext, 20 bytes of associated data.
    static let key = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let plaintext =
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
    static let associatedData = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
    static let nonce = "cafebabefacedbaddecaf888"
    static let ciphertext =
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
    static let tag = "76fc6ece0f4e1768cddf8853bb2d551b"

    static func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex) ?? [] }

    @Test("sealing matches the GCM specification's test case 16: nonce, ciphertext, tag")
    func knownAnswer() throws {
        let box = try AESGCM.seal(
            Self.bytes(Self.plaintext), key: Self.bytes(Self.key), associatedData: Self.bytes(Self.associatedData),
            nonce: Self.bytes(Self.nonce))
        #expect(Hex.encode(box) == Self.nonce + Self.ciphertext + Self.tag)
        let opened = try AESGCM.open(
            box, key: Self.bytes(Self.key), associatedData: Self.bytes(Self.associatedData))
        #expect(opened == Self.bytes(Self.plaintext))
    }

    @Test("a box opens only with its key and its associated data, and not after any byte changed")
    func authenticates() throws {
        let key = SecureRandom.bytes(count: 32)
        let box = try AESGCM.seal(Array("relay@privaterelay.appleid.com".utf8), key: key, associatedData: [1, 2])
        #expect(box.count == 30 + AESGCM.overhead)
        #expect(try AESGCM.open(box, key: key, associatedData: [1, 2]) == Array("relay@privaterelay.appleid.com".utf8))
        #expect(throws: CryptoError.self) {
            try AESGCM.open(box, key: SecureRandom.bytes(count: 32), associatedData: [1, 2])
        }
        #expect(throws: CryptoError.self) { try AESGCM.open(box, key: key, associatedData: [1, 3]) }
        for index in [0, 12, box.count - 1] {
            var altered = box
            altered[index] ^= 0x01
            #expect(throws: CryptoError.self) { try AESGCM.open(altered, key: key, associatedData: [1, 2]) }
        }
        #expect(throws: CryptoError.self) { try AESGCM.open(Array(box.prefix(27)), key: key, associatedData: [1, 2]) }
    }

    @Test("every seal draws a fresh nonce; empty plaintexts and short keys are handled")
    func nonces() throws {
        let key = SecureRandom.bytes(count: 32)
        let first = try AESGCM.seal([7], key: key, associatedData: [])
        let second = try AESGCM.seal([7], key: key, associatedData: [])
        #expect(first.prefix(12) != second.prefix(12))
        let empty = try AESGCM.seal([], key: key, associatedData: [9])
        #expect(try AESGCM.open(empty, key: key, associatedData: [9]) == [])
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], key: [1, 2, 3], associatedData: []) }
    }
}
