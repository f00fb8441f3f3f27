import Foundation
import LifecycleCrypto
import TransparencyLog

/// Published test vectors under `Fixtures/` (sources in `Fixtures/README.md`).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try JSONDecoder().decode(type, from: try data(name))
    }
}

/// `Fixtures/rfc6962-tree-vectors.json`.
struct TreeVectors: Decodable {
    struct Inclusion: Decodable {
        var index: UInt64
        var size: UInt64
        var proof: [String]
    }
    struct Consistency: Decodable {
        var size1: UInt64
        var size2: UInt64
        var proof: [String]
    }
    var leaves: [String]
    var roots: [String]
    var inclusion: [Inclusion]
    var consistency: [Consistency]

    static func load() throws -> TreeVectors { try Fixtures.decode(TreeVectors.self, "rfc6962-tree-vectors.json") }

    var leafEntries: [[UInt8]] { leaves.map { Hex.decode($0)! } }
    func root(_ size: UInt64) -> MerkleHash { MerkleHash.hex(roots[Int(size)]) }
}

/// `Fixtures/signed-note-vectors.json`.
struct NoteVectors: Decodable {
    var peterVerifierKey: String
    var peterSignerKey: String
    var enochVerifierKey: String
    var text: String
    var peterSignature: String
    var enochSignature: String
    var badVerifierKeys: [String]
    var sumdbVerifierKey: String
    var sumdbCheckpoints: [String]

    static func load() throws -> NoteVectors { try Fixtures.decode(NoteVectors.self, "signed-note-vectors.json") }

    /// The Ed25519 seed inside `PRIVATE+KEY+<name>+<id>+base64(0x01 ‖ seed)`, as an OpenSSL key: a PKCS#8
    /// `PrivateKeyInfo` is a fixed 16-byte prefix and the seed (RFC 8410 §7).
    func peterPrivateKey() throws -> Ed25519PrivateKey {
        let field = peterSignerKey.split(separator: "+", maxSplits: 4).last!
        let encoded = [UInt8](Data(base64Encoded: String(field))!)
        precondition(encoded.first == 0x01 && encoded.count == 33)
        let der = Hex.decode("302e020100300506032b657004220420")! + Array(encoded.dropFirst())
        let pem = "-----BEGIN PRIVATE KEY-----\n\(Data(der).base64EncodedString())\n-----END PRIVATE KEY-----\n"
        return try Ed25519PrivateKey(pem: Array(pem.utf8))
    }
}

extension MerkleHash {
    static func hex(_ text: String) -> MerkleHash { MerkleHash(bytes: Hex.decode(text)!)! }
    static func b64(_ text: String) -> MerkleHash { MerkleHash(base64: text)! }

    /// The same hash with one bit flipped.
    func flipping(bit: Int) -> MerkleHash {
        var copy = bytes
        copy[bit / 8] ^= 1 << UInt8(bit % 8)
        return MerkleHash(bytes: copy)!
    }
}
