import LifecycleCrypto
import Testing

@Suite("Crypto primitives")
struct CryptoPrimitivesTests {
    @Test("SHA-256 matches the FIPS 180-4 test vectors")
    func sha256Vectors() {
        #expect(SHA256.hexDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hash("abc").count == 32)
    }

    @Test("HMAC-SHA256 matches RFC 4231 test case 2")
    func hmacVector() {
        let mac = HMACSHA256.authenticate(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("secure random bytes have the requested length and differ between calls")
    func randomBytes() {
        let first = SecureRandom.bytes(count: 32)
        #expect(first.count == 32)
        #expect(first != SecureRandom.bytes(count: 32))
        #expect(SecureRandom.bytes(count: 0).isEmpty)
    }

    @Test("constant-time comparison is equality, including on length")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }

    @Test("hex round-trips and rejects odd or non-hex input")
    func hex() {
        #expect(Hex.decode("00ff10Ab") == [0x00, 0xFF, 0x10, 0xAB])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }

    @Test(
        "base64url encodes RFC 4648 test vectors without padding",
        arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE")])
    func base64urlEncode(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("base64url uses - and _ and tolerates exact padding")
    func base64urlAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(Base64URL.decode("Zm8=") == Array("fo".utf8))
    }

    @Test(
        "base64url decoding is strict",
        arguments: ["+/8", "Zm9v YmE", "Z", "Zg=", "Zg===", "Zh", "Zm9v\n", "Zm9v!"])
    func base64urlStrict(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("an RSA key exported as JWK n/e rebuilds into a key that verifies its RS256 signatures")
    func rsaJWKRoundTrip() throws {
        let privateKey = try RSAPrivateKey.generate(bits: 2048)
        let (n, e) = try privateKey.publicKey.jwkComponents()
        #expect(e == "AQAB")
        let rebuilt = try RSAPublicKey(
            modulus: try #require(Base64URL.decode(n)), exponent: try #require(Base64URL.decode(e)))
        #expect(rebuilt.bitCount == 2048)
        let message = Array("header.payload".utf8)
        let signature = try privateKey.signRS256(message)
        #expect(rebuilt.verifyRS256(signature: signature, message: message))
        #expect(!rebuilt.verifyRS256(signature: signature, message: Array("header.payloaD".utf8)))
        var flipped = signature
        flipped[0] ^= 1
        #expect(!rebuilt.verifyRS256(signature: flipped, message: message))
        #expect(!rebuilt.verifyRS256(signature: [], message: message))
    }

    @Test("a PS256 signature does not verify as RS256")
    func pssIsNotPKCS1() throws {
        let privateKey = try RSAPrivateKey.generate(bits: 2048)
        let message = Array("m".utf8)
        let signature = try privateKey.signPS256(message)
        #expect(signature.count == 256)
        #expect(!privateKey.publicKey.verifyRS256(signature: signature, message: message))
    }

    @Test("an RSA private key survives a PKCS#8 PEM round trip")
    func rsaPEM() throws {
        let privateKey = try RSAPrivateKey.generate(bits: 2048)
        let pem = try privateKey.pemPKCS8()
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let loaded = try RSAPrivateKey(pem: pem)
        let signature = try loaded.signRS256([1, 2, 3])
        #expect(privateKey.publicKey.verifyRS256(signature: signature, message: [1, 2, 3]))
    }

    @Test("garbage is not a key")
    func invalidKeys() {
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: Array("not a pem".utf8)) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: [], exponent: [1, 0, 1]) }
        #expect(throws: CryptoError.self) { try Ed25519PublicKey(rawBytes: [1, 2, 3]) }
    }

    /// Regression (fuzzing, jwks): `{"kty":"RSA","n":"AQAB","e":"AA"}` built an OpenSSL key with e = 0, which
    /// then could not even be exported again.
    @Test(
        "an RSA key with an even modulus, or an exponent that is 0, 1, even or not below n, is refused",
        arguments: [
            ([UInt8]([1, 0, 1]), [UInt8]([0])), ([1, 0, 1], [1]), ([1, 0, 1], [2]), ([1, 0, 0], [3]),
            ([1, 0, 1], [1, 0, 1]), ([0x0F], [0x11]),
        ])
    func structurallyInvalidRSAKeys(modulus: [UInt8], exponent: [UInt8]) {
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: modulus, exponent: exponent) }
    }

    @Test("an Ed25519 key is refused where an RSA key is expected")
    func wrongKeyType() throws {
        let ed = try Ed25519PrivateKey.generate()
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: try ed.pemPKCS8()) }
    }

    @Test("Ed25519 signs and verifies, and keys survive PEM and raw export")
    func ed25519() throws {
        let privateKey = try Ed25519PrivateKey.generate()
        let message = Array("report canonical form".utf8)
        let signature = try privateKey.sign(message)
        #expect(signature.count == 64)
        #expect(privateKey.publicKey.verify(signature: signature, message: message))
        #expect(!privateKey.publicKey.verify(signature: signature, message: message + [0]))

        let raw = try privateKey.publicKey.rawBytes()
        #expect(raw.count == 32)
        #expect(try Ed25519PublicKey(rawBytes: raw).verify(signature: signature, message: message))
        #expect(
            try Ed25519PublicKey(pem: try privateKey.publicKey.pem()).verify(signature: signature, message: message))

        let reloaded = try Ed25519PrivateKey(pem: try privateKey.pemPKCS8())
        #expect(try reloaded.publicKey.rawBytes() == raw)
    }
}
