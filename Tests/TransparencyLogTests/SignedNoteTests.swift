import LifecycleCrypto
import Testing

@testable import TransparencyLog

/// c2sp.org/signed-note against golang.org/x/mod/sumdb/note's published vectors and the spec's rules.
@Suite("Signed notes: C2SP signed-note with Ed25519")
struct SignedNoteTests {
    let vectors: NoteVectors
    let peter: NoteVerifierKey
    let enoch: NoteVerifierKey

    init() throws {
        vectors = try NoteVectors.load()
        peter = try NoteVerifierKey(parsing: vectors.peterVerifierKey)
        enoch = try NoteVerifierKey(parsing: vectors.enochVerifierKey)
    }

    var peterNote: [UInt8] { Array((vectors.text + "\n" + vectors.peterSignature).utf8) }
    var bothNote: [UInt8] { Array((vectors.text + "\n" + vectors.peterSignature + vectors.enochSignature).utf8) }

    @Test("signing the published text with the published key gives the published note byte for byte")
    func signMatchesGo() throws {
        let signer = try NoteSigner(name: "PeterNeumann", privateKey: try vectors.peterPrivateKey())
        #expect(signer.verifierKey == peter)
        #expect(signer.verifierKey.text == vectors.peterVerifierKey)
        let note = try SignedNote.sign(text: vectors.text, with: [signer])
        #expect(note.bytes == peterNote)
    }

    @Test("the published note verifies; its text and signature parse as published")
    func openPublishedNote() throws {
        let note = try SignedNote(parsing: peterNote)
        #expect(note.text == vectors.text)
        #expect(note.signatures.count == 1)
        #expect(note.signatures[0].name == "PeterNeumann")
        #expect(note.signatures[0].keyID == 0xc74f_20a3)
        #expect(try note.verifiedKeys(trusting: [peter]) == [peter])
    }

    @Test("with two signatures, each trusted key verifies and an unknown key is ignored")
    func severalSignatures() throws {
        let note = try SignedNote(parsing: bothNote)
        #expect(note.signatures.map(\.name) == ["PeterNeumann", "EnochRoot"])
        #expect(try note.verifiedKeys(trusting: [peter]) == [peter])
        #expect(try note.verifiedKeys(trusting: [enoch]) == [enoch])
        #expect(try note.verifiedKeys(trusting: [peter, enoch]) == [peter, enoch])
    }

    @Test("a note signed by no trusted key is rejected, naming who signed it")
    func noTrustedKey() throws {
        let note = try SignedNote(parsing: bothNote)
        let error = #expect(throws: TransparencyLogError.self) { try note.verifiedKeys(trusting: []) }
        #expect(error?.code == .noTrustedSignature)
        #expect(error?.description.contains("PeterNeumann+c74f20a3") == true)
    }

    @Test("a trusted key's signature that fails rejects the whole note, even beside a good one")
    func invalidTrustedSignatureRejects() throws {
        var line = Array(vectors.peterSignature.utf8)
        line.insert(contentsOf: Array("ABCD".utf8), at: 60)
        let tampered = Array((vectors.text + "\n").utf8) + line + Array(vectors.enochSignature.utf8)
        let note = try SignedNote(parsing: tampered)
        let error = #expect(throws: TransparencyLogError.self) { try note.verifiedKeys(trusting: [peter, enoch]) }
        #expect(error?.code == .invalidSignature)
        #expect(error?.description.contains("PeterNeumann+c74f20a3") == true)
        // The same line under an untrusted key is ignored.
        #expect(try note.verifiedKeys(trusting: [enoch]) == [enoch])
    }

    @Test("a changed text fails under the trusted key")
    func changedTextFails() throws {
        let changed = Array(
            (vectors.text.replacingOccurrences(of: "answer", with: "ANSWER") + "\n" + vectors.peterSignature).utf8)
        let note = try SignedNote(parsing: changed)
        #expect(throws: TransparencyLogError.self) { try note.verifiedKeys(trusting: [peter]) }
    }

    @Test("a key with the right name but another ID, or the right ID under another name, is not the signer")
    func nameAndIDBothMatter() throws {
        let other = try NoteVerifierKey(name: "PeterNeumann", publicKey: try Ed25519PrivateKey.generate().publicKey)
        let note = try SignedNote(parsing: peterNote)
        let error = #expect(throws: TransparencyLogError.self) { try note.verifiedKeys(trusting: [other]) }
        #expect(error?.code == .noTrustedSignature)
    }

    @Test("two different trusted keys under one name and key ID are refused as ambiguous")
    func ambiguousKeys() throws {
        // Another public key under Peter's name and ID: an attacker finds such a key with 2^32 work.
        let forged = NoteVerifierKey(name: "PeterNeumann", keyID: peter.keyID, publicKeyBytes: enoch.publicKeyBytes)
        let note = try SignedNote(parsing: peterNote)
        let error = #expect(throws: TransparencyLogError.self) { try note.verifiedKeys(trusting: [peter, forged]) }
        #expect(error?.code == .ambiguousKey)
    }

    @Test(
        "malformed notes from the Go test suite and the spec's rules are refused",
        arguments: [
            ("text only", "TEXT"),
            ("text and blank line", "TEXT\n"),
            ("signature without its newline", "TEXT\nSIGNOLF"),
            ("control character", "\u{01}TEXT\nSIG"),
            (
                "bad name",
                "TEXT\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
            ),
            (
                "plus in name",
                "TEXT\n— Peter+Neumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
            ),
            ("unexpected line", "TEXT\nSIG" + "Unexpected line.\n"),
            (
                "hyphen for em dash",
                "TEXT\n- PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
            ),
            (
                "unpadded base64",
                "TEXT\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM\n"
            ),
            (
                "carriage return",
                "TEXT\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\r\n"
            ),
            ("shorter than a key ID and a byte", "TEXT\n— PeterNeumann x08g\n"),
        ])
    func malformed(_ what: String, _ template: String) throws {
        let text = vectors.text
        let signature = vectors.peterSignature
        let message = template.replacingOccurrences(of: "TEXT", with: text)
            .replacingOccurrences(of: "SIGNOLF", with: String(signature.dropLast()))
            .replacingOccurrences(of: "SIG", with: signature)
        let error = #expect(throws: TransparencyLogError.self, "\(what)") {
            try SignedNote(parsing: Array(message.utf8))
        }
        #expect(error?.code == .malformedNote)
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        let bytes = [0xFF] + peterNote
        let error = #expect(throws: TransparencyLogError.self) { try SignedNote(parsing: bytes) }
        #expect(error?.code == .malformedNote)
    }

    @Test("at least 16 signatures are accepted (the spec's floor); more than the limit are refused")
    func signatureCountLimit() throws {
        let sixteen = Array(
            (vectors.text + "\n" + String(repeating: vectors.enochSignature, count: 15) + vectors.peterSignature).utf8)
        #expect(try SignedNote(parsing: sixteen).verifiedKeys(trusting: [peter]) == [peter])
        let tooMany = Array((vectors.text + "\n" + String(repeating: vectors.peterSignature, count: 101)).utf8)
        let error = #expect(throws: TransparencyLogError.self) { try SignedNote(parsing: tooMany) }
        #expect(error?.code == .malformedNote)
    }

    @Test("the text may hold blank lines: the signatures start after the last one")
    func blankLinesInText() throws {
        let key = try Ed25519PrivateKey.generate()
        let signer = try NoteSigner(name: "example.com/poet", privateKey: key)
        let text = "Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n"
        let bytes = try SignedNote.sign(text: text, with: [signer]).bytes
        let parsed = try SignedNote(parsing: bytes)
        #expect(parsed.text == text)
        #expect(try parsed.verifiedKeys(trusting: [signer.verifierKey]) == [signer.verifierKey])
    }
}
