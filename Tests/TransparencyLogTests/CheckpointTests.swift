import LifecycleCrypto
import Testing

@testable import TransparencyLog

@Suite("Checkpoints: C2SP tlog-checkpoint bodies and signed checkpoints")
struct CheckpointTests {
    static let root = MerkleHash.b64("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=")

    @Test("the spec's example body parses into origin, size and root, and prints back byte for byte")
    func specExample() throws {
        let text = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
        let checkpoint = try Checkpoint(parsing: text)
        #expect(checkpoint.origin == "example.com/behind-the-sofa")
        #expect(checkpoint.size == 20_852_163)
        #expect(checkpoint.rootHash == Self.root)
        #expect(checkpoint.extensions.isEmpty)
        #expect(checkpoint.text == text)
    }

    @Test("extension lines are kept in order and printed back")
    func extensions() throws {
        let text = "log.example\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\nfirst extension\nsecond\n"
        let checkpoint = try Checkpoint(parsing: text)
        #expect(checkpoint.size == 0)
        #expect(checkpoint.rootHash == .emptyTree)
        #expect(checkpoint.extensions == ["first extension", "second"])
        #expect(checkpoint.text == text)
    }

    @Test(
        "bodies that break the spec are refused",
        arguments: [
            "log\n5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=",  // no final newline
            "log\n5\n",  // two lines
            "\n5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  // empty origin
            "log\n05\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  // leading zero
            "log\n+5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  // sign
            "log\n-5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  // negative
            "log\n18446744073709551616\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  // 2^64
            "log\n5 \nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  // trailing space
            "log\n5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I\n",  // unpadded
            "log\n5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2J=\n",  // non-canonical last character
            "log\n5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I2I=\n",  // not 32 bytes
            "log\n5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n",  // empty extension line
        ])
    func malformed(_ text: String) {
        let error = #expect(throws: TransparencyLogError.self) { try Checkpoint(parsing: text) }
        #expect(error?.code == .malformedCheckpoint)
    }

    @Test("the largest size, 2^64 - 1, parses")
    func largestSize() throws {
        let checkpoint = try Checkpoint(parsing: "log\n18446744073709551615\n\(Self.root.base64)\n")
        #expect(checkpoint.size == UInt64.max)
    }

    @Test("checkpoints signed by the Go checksum database verify with its published key")
    func sumGolangOrg() throws {
        let vectors = try NoteVectors.load()
        let key = try NoteVerifierKey(parsing: vectors.sumdbVerifierKey)
        var sizes: [UInt64] = []
        for note in vectors.sumdbCheckpoints {
            let signed = try SignedCheckpoint.open(Array(note.utf8), origin: "go.sum database tree", trusting: [key])
            sizes.append(signed.checkpoint.size)
            #expect(signed.bytes == Array(note.utf8))
            #expect(signed.signers == [key])
            // One changed digit of the size breaks the signature.
            let forged = note.replacingOccurrences(
                of: "\n\(signed.checkpoint.size)\n", with: "\n\(signed.checkpoint.size + 1)\n")
            let error = #expect(throws: TransparencyLogError.self) {
                try SignedCheckpoint.open(Array(forged.utf8), origin: "go.sum database tree", trusting: [key])
            }
            #expect(error?.code == .invalidSignature)
        }
        #expect(sizes == [15_368_405, 3_784_599, 63_096_908])
    }

    @Test("a signed checkpoint from another log is refused even though a trusted key signed it")
    func originChecked() throws {
        let signer = try NoteSigner(name: "reports.example/a", privateKey: try Ed25519PrivateKey.generate())
        let signed = try SignedCheckpoint.sign(
            Checkpoint(origin: "reports.example/a", size: 5, rootHash: Self.root), with: signer)
        #expect(
            try SignedCheckpoint.open(signed.bytes, origin: "reports.example/a", trusting: [signer.verifierKey])
                .checkpoint.size == 5)
        let error = #expect(throws: TransparencyLogError.self) {
            try SignedCheckpoint.open(signed.bytes, origin: "reports.example/b", trusting: [signer.verifierKey])
        }
        #expect(error?.code == .originMismatch)
    }

    @Test("an origin holding a newline cannot be signed")
    func newlineInOrigin() throws {
        let signer = try NoteSigner(name: "log", privateKey: try Ed25519PrivateKey.generate())
        #expect(throws: TransparencyLogError.self) {
            try SignedCheckpoint.sign(Checkpoint(origin: "log\n99", size: 5, rootHash: Self.root), with: signer)
        }
    }

    @Test("every one-byte change to a signed checkpoint file is refused")
    func everyByteMatters() throws {
        let signer = try NoteSigner(name: "reports.example/app", privateKey: try Ed25519PrivateKey.generate())
        let signed = try SignedCheckpoint.sign(
            Checkpoint(origin: "reports.example/app", size: 1234, rootHash: Self.root), with: signer)
        let bytes = signed.bytes
        for position in bytes.indices {
            for delta: UInt8 in [1, 0x20, 0x80] {
                var changed = bytes
                changed[position] ^= delta
                #expect(throws: TransparencyLogError.self, "byte \(position) ^ \(delta)") {
                    try SignedCheckpoint.open(changed, origin: "reports.example/app", trusting: [signer.verifierKey])
                }
            }
        }
    }
}
