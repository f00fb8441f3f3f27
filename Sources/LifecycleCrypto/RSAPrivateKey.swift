import COpenSSL

/// An RSA private key. Apple holds the real ones of its notifications; this type exists for `lifecycle
/// simulate`, the local demo, benchmarks and tests, which mint notifications the verifier accepts, and for the
/// Google service account key whose self-signed JWT authorises `lifecycle signals stream` at Google's RISC API.
public struct RSAPrivateKey: Sendable {
    public let key: EVPKey

    init(key: EVPKey) { self.key = key }

    /// Generates a fresh key. `bits` below 2048 is allowed so tests can prove weak keys are refused.
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        guard bits >= 512, bits <= 16_384 else {
            throw CryptoError(.keyGenerationFailed, "RSA key size \(bits) is out of range")
        }
        let key = try EVPKey.generate(algorithm: "RSA") { context in
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits))
        }
        return RSAPrivateKey(key: key)
    }

    /// Reads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, or traditional `BEGIN RSA PRIVATE KEY`).
    public init(pem: [UInt8]) throws(CryptoError) {
        let key = try PEM.readPrivateKey(pem)
        guard key.isA("RSA") else { throw CryptoError(.invalidKey, "PEM key is not an RSA key") }
        self.key = key
    }

    /// PKCS#8 PEM (`BEGIN PRIVATE KEY`), unencrypted: callers write it with mode 0600.
    public func pemPKCS8() throws(CryptoError) -> [UInt8] { try PEM.writePrivateKey(key) }

    public var bitCount: Int { key.bitCount }

    /// The matching public key, sharing the same OpenSSL object (a private key can also verify).
    public var publicKey: RSAPublicKey { RSAPublicKey(key: key) }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS `RS256`, RFC 7518 §3.3).
    public func signRS256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try SignatureOperation.sign(key: key, digest: EVP_sha256(), message: message)
    }

    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt (JWS `PS256`, RFC 7518 §3.5). The verifier
    /// never accepts PS256; tests use this to prove a relabelled token is refused.
    public func signPS256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try SignatureOperation.sign(key: key, digest: EVP_sha256(), message: message) { context in
            guard EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST) == 1
            else { return 0 }
            return 1
        }
    }
}
