import LifecycleCrypto
import Testing

@testable import TransparencyLog

@Suite("Note verifier keys: <name>+<key ID>+<base64(0x01 ‖ key)>")
struct NoteVerifierKeyTests {
    let vectors: NoteVectors

    init() throws { vectors = try NoteVectors.load() }

    @Test("the published keys parse, and their key IDs are SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[:4]")
    func publishedKeys() throws {
        let peter = try NoteVerifierKey(parsing: vectors.peterVerifierKey)
        #expect(peter.name == "PeterNeumann")
        #expect(peter.keyID == 0xc74f_20a3)
        #expect(peter.text == vectors.peterVerifierKey)
        let sumdb = try NoteVerifierKey(parsing: vectors.sumdbVerifierKey)
        #expect(sumdb.name == "sum.golang.org")
        #expect(sumdb.keyID == 0x033d_e0ae)
        #expect(sumdb.text == vectors.sumdbVerifierKey)
        let digest = SHA256.hash(Array("PeterNeumann\n".utf8) + [0x01] + peter.publicKeyBytes)
        #expect(Array(digest.prefix(4)) == [0xc7, 0x4f, 0x20, 0xa3])
    }

    @Test("a key built from a public key prints the string that parses back to it")
    func roundTrip() throws {
        let key = try NoteVerifierKey(
            name: "reports.example/app/log", publicKey: try Ed25519PrivateKey.generate().publicKey)
        #expect(try NoteVerifierKey(parsing: key.text) == key)
    }

    @Test("every proper substring and every one-byte change of the published key is refused (as in Go's test)")
    func manglings() throws {
        let bytes = Array(vectors.peterVerifierKey.utf8)
        var refused = 0
        for start in 0...bytes.count {
            for end in (start + 1)..<(bytes.count + 1) where !(start == 0 && end == bytes.count) {
                let text = String(decoding: bytes[start..<end], as: UTF8.self)
                #expect(throws: TransparencyLogError.self, "\(text)") { try NoteVerifierKey(parsing: text) }
                refused += 1
            }
        }
        for position in bytes.indices {
            var changed = bytes
            changed[position] &+= 1
            let text = String(decoding: changed, as: UTF8.self)
            #expect(throws: TransparencyLogError.self, "\(text)") { try NoteVerifierKey(parsing: text) }
        }
        #expect(refused == bytes.count * (bytes.count + 1) / 2 - 1)
    }

    @Test("a key of the wrong length or an unknown signature type is refused, even with a matching key ID")
    func badKeys() {
        for text in vectors.badVerifierKeys {
            let error = #expect(throws: TransparencyLogError.self, "\(text)") { try NoteVerifierKey(parsing: text) }
            #expect(error?.code == .malformedKey)
        }
    }

    @Test("names with spaces or plus signs are refused")
    func badNames() throws {
        let publicKey = try Ed25519PrivateKey.generate().publicKey
        for name in ["", "a b", "a\u{00A0}b", "tab\tname", "a+b"] {
            #expect(throws: TransparencyLogError.self, "\(name)") {
                try NoteVerifierKey(name: name, publicKey: publicKey)
            }
        }
    }
}
