import COpenSSL
import Testing

@testable import LifecycleCrypto

@Suite("ES256 with P-256 keys")
struct ES256Tests {
    @Test("the RFC 7515 A.3 signature verifies with the RFC's public key, and a changed bit does not")
    func rfcSignatureVerifies() {
        let key = RFC7515A3.publicKey
        let message = Array(RFC7515A3.signingInput.utf8)
        let signature = RFC7515A3.bytes(RFC7515A3.signature)
        #expect(signature.count == 64)
        #expect(key.verifyES256(signature: signature, message: message))
        var flipped = signature
        flipped[10] ^= 0x01
        #expect(!key.verifyES256(signature: flipped, message: message))
        #expect(!key.verifyES256(signature: signature, message: message + [0x20]))
    }

    @Test("the DER form of a valid signature is refused: a JWS carries only r||s")
    func derIsRefused() throws {
        let signature = RFC7515A3.bytes(RFC7515A3.signature)
        let der = try #require(ECDSASignatureEncoding.der(fromJOSE: signature))
        #expect(!RFC7515A3.publicKey.verifyES256(signature: der, message: Array(RFC7515A3.signingInput.utf8)))
    }

    @Test("a .p8 file of the RFC 7515 A.3 key loads, has the RFC's public point, and signs what that point verifies")
    func rfcPrivateKeyFromPKCS8() throws {
        let key = try P256PrivateKey(pem: RFC7515A3.pkcs8PEM)
        let (x, y) = try key.publicKey.coordinates()
        #expect(x == RFC7515A3.bytes(RFC7515A3.x))
        #expect(y == RFC7515A3.bytes(RFC7515A3.y))
        let message = Array(RFC7515A3.signingInput.utf8)
        let first = try key.signES256(message)
        let second = try key.signES256(message)
        #expect(first.count == 64)
        #expect(first != second, "ECDSA draws a fresh nonce per signature")
        #expect(RFC7515A3.publicKey.verifyES256(signature: first, message: message))
        #expect(RFC7515A3.publicKey.verifyES256(signature: second, message: message))
    }

    @Test("generated keys round-trip through PKCS#8 and SubjectPublicKeyInfo PEM and still verify")
    func pemRoundTrip() throws {
        let key = try P256PrivateKey.generate()
        let pem = try key.pemPKCS8()
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try P256PrivateKey(pem: pem)
        let publicKey = try P256PublicKey(pem: try key.publicKey.pem())
        let message = Array("client secret".utf8)
        #expect(publicKey.verifyES256(signature: try reloaded.signES256(message), message: message))
        let (x, y) = try publicKey.coordinates()
        let rebuilt = try P256PublicKey(x: x, y: y)
        #expect(rebuilt.verifyES256(signature: try key.signES256(message), message: message))
        let other = try P256PrivateKey.generate()
        #expect(!other.publicKey.verifyES256(signature: try key.signES256(message), message: message))
    }

    @Test("keys on other curves, RSA and Ed25519 keys, encrypted keys and garbage are refused as .p8 files")
    func otherKeysAreRefused() throws {
        for curve in ["secp384r1", "secp256k1", "secp521r1"] {
            let key = try EVPKey.generate(algorithm: "EC") { EVP_PKEY_CTX_set_group_name($0, curve) }
            let pem = try PEM.writePrivateKey(key)
            #expect(throws: CryptoError.self, "curve \(curve)") { try P256PrivateKey(pem: pem) }
            #expect(throws: CryptoError.self) { try P256PublicKey(pem: try PEM.writePublicKey(key)) }
        }
        #expect(throws: CryptoError.self) { try P256PrivateKey(pem: try RSAPrivateKey.generate().pemPKCS8()) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(pem: try Ed25519PrivateKey.generate().pemPKCS8()) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(pem: Array("not a key".utf8)) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(pem: try P256PrivateKey.generate().publicKey.pem()) }

        let encrypted = try Self.encryptedPKCS8(try P256PrivateKey.generate())
        #expect(String(decoding: encrypted, as: UTF8.self).contains("ENCRYPTED PRIVATE KEY"))
        let error = #expect(throws: CryptoError.self) { try P256PrivateKey(pem: encrypted) }
        #expect(error?.code == .decodingFailed)
    }

    @Test("coordinates that are not a point on P-256, or not 32 octets each, are refused")
    func offCurvePoints() {
        var x = RFC7515A3.bytes(RFC7515A3.x)
        let y = RFC7515A3.bytes(RFC7515A3.y)
        x[31] ^= 0x01
        #expect(throws: CryptoError.self) { try P256PublicKey(x: x, y: y) }
        #expect(throws: CryptoError.self) { try P256PublicKey(x: Array(x.prefix(31)), y: y) }
        #expect(throws: CryptoError.self) { try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: y) }
    }

    @Test("signatures of the wrong length, all zeros, or with r or s at the group order are false, never a trap")
    func degenerateSignatures() {
        let key = RFC7515A3.publicKey
        let message = Array(RFC7515A3.signingInput.utf8)
        let order = Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")!
        let valid = RFC7515A3.bytes(RFC7515A3.signature)
        for signature in [
            [], [UInt8](repeating: 0, count: 64), [UInt8](repeating: 0xFF, count: 64), Array(valid.prefix(63)),
            valid + [0], order + Array(valid.suffix(32)), Array(valid.prefix(32)) + order,
        ] {
            #expect(!key.verifyES256(signature: signature, message: message))
        }
    }

    /// PKCS#8 encrypted with AES-256-CBC under a passphrase, as `openssl pkcs8 -topk8` writes it.
    private static func encryptedPKCS8(_ key: P256PrivateKey) throws -> [UInt8] {
        try key.key.withKey { pkey in
            try MemoryBIO.writing { bio in
                PEM_write_bio_PKCS8PrivateKey(bio, pkey, EVP_aes_256_cbc(), "passphrase", 10, nil, nil)
            }
        }
    }
}
