import COpenSSL
import Testing

@testable import LifecycleCrypto

@Suite("ECDSA signature encodings: DER and JOSE r||s")
struct ECDSASignatureEncodingTests {
    private static let r32 = [UInt8](repeating: 0x11, count: 32)
    private static let s32 = [UInt8](repeating: 0x22, count: 32)

    @Test("32-octet r and s without high bits are two plain INTEGERs")
    func plainIntegers() throws {
        let der = [0x30, 0x44, 0x02, 0x20] + Self.r32 + [0x02, 0x20] + Self.s32
        #expect(ECDSASignatureEncoding.jose(fromDER: der) == Self.r32 + Self.s32)
        #expect(ECDSASignatureEncoding.der(fromJOSE: Self.r32 + Self.s32) == der)
    }

    @Test("an r with its high bit set carries a zero sign octet in DER, which JOSE drops")
    func signOctet() throws {
        let r = [0x80] + [UInt8](repeating: 0x01, count: 31)
        let der = [0x30, 0x45, 0x02, 0x21, 0x00] + r + [0x02, 0x20] + Self.s32
        #expect(ECDSASignatureEncoding.jose(fromDER: der) == r + Self.s32)
        #expect(ECDSASignatureEncoding.der(fromJOSE: r + Self.s32) == der)
    }

    @Test("a short s is left-padded with zeros to 32 octets in JOSE (RFC 7518 §3.4)")
    func leftPadding() throws {
        let s = [UInt8](repeating: 0x33, count: 30)
        let der = [0x30, 0x42, 0x02, 0x20] + Self.r32 + [0x02, 0x1E] + s
        #expect(ECDSASignatureEncoding.jose(fromDER: der) == Self.r32 + [0, 0] + s)
        #expect(ECDSASignatureEncoding.der(fromJOSE: Self.r32 + [0, 0] + s) == der)
        // Zero itself is one octet.
        let zero = [UInt8](repeating: 0, count: 32)
        #expect(ECDSASignatureEncoding.der(fromJOSE: zero + zero) == [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00])
    }

    @Test(
        "DER that is not the one canonical encoding is refused",
        arguments: [
            ("empty", [UInt8]()),
            ("not a sequence", [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]),
            ("length longer than content", [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]),
            ("trailing octet", [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00]),
            ("long-form length for a short sequence", [0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]),
            ("negative r", [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01]),
            ("needless leading zero", [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01]),
            ("empty integer", [0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x01]),
            ("one integer", [0x30, 0x03, 0x02, 0x01, 0x01]),
            ("three integers", [0x30, 0x09, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]),
            ("not an integer", [0x30, 0x06, 0x04, 0x01, 0x01, 0x02, 0x01, 0x01]),
            ("integer past the end", [0x30, 0x06, 0x02, 0x05, 0x01, 0x02, 0x01, 0x01]),
            (
                "r wider than 32 octets",
                [0x30, 0x26, 0x02, 0x21] + [UInt8](repeating: 0x01, count: 33) + [0x02, 0x01, 0x01]
            ),
        ] as [(String, [UInt8])])
    func strictDER(name: String, der: [UInt8]) {
        #expect(ECDSASignatureEncoding.jose(fromDER: der) == nil, "\(name)")
    }

    @Test("a JOSE signature of any length but 64 octets has no DER form")
    func joseLength() {
        #expect(ECDSASignatureEncoding.der(fromJOSE: []) == nil)
        #expect(ECDSASignatureEncoding.der(fromJOSE: [UInt8](repeating: 1, count: 63)) == nil)
        #expect(ECDSASignatureEncoding.der(fromJOSE: [UInt8](repeating: 1, count: 65)) == nil)
        #expect(ECDSASignatureEncoding.der(fromJOSE: [UInt8](repeating: 1, count: 72)) == nil)
    }

    @Test("2,000 OpenSSL signatures convert to r||s and back to the identical DER, short r and s included")
    func roundTripsOpenSSL() throws {
        let key = try P256PrivateKey.generate()
        var padded = 0
        for index in 0..<2_000 {
            let message = Array("message \(index)".utf8)
            let der = try SignatureOperation.sign(key: key.key, digest: EVP_sha256(), message: message)
            let jose = try #require(ECDSASignatureEncoding.jose(fromDER: der))
            #expect(jose.count == 64)
            #expect(ECDSASignatureEncoding.der(fromJOSE: jose) == der)
            #expect(key.publicKey.verifyES256(signature: jose, message: message))
            if jose[0] == 0 || jose[32] == 0 { padded += 1 }
        }
        // r or s below 2^248 happens once in 128 signatures; over 2,000 the padding path runs many times.
        #expect(padded > 0)
    }

    @Test("random and mutated input never traps, and whatever decodes re-encodes to the same octets")
    func fuzz() {
        var generator = SystemRandomNumberGenerator()
        let seed =
            [0x30, 0x45, 0x02, 0x21, 0x00, 0x80] + [UInt8](repeating: 0x01, count: 31) + [0x02, 0x20] + Self.s32
        for round in 0..<20_000 {
            var input: [UInt8]
            if round % 2 == 0 {
                input = (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                input = seed
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let position = Int.random(in: 0..<input.count, using: &generator)
                    input[position] = UInt8.random(in: 0...255, using: &generator)
                }
                if Bool.random(using: &generator) { input.removeLast(Int.random(in: 0...3, using: &generator)) }
            }
            if let jose = ECDSASignatureEncoding.jose(fromDER: input) {
                #expect(ECDSASignatureEncoding.der(fromJOSE: jose) == input)
            }
            _ = ECDSASignatureEncoding.der(fromJOSE: input)
        }
    }
}
