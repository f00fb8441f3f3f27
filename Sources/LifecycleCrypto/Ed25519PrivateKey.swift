import COpenSSL

/// An Ed25519 private key (RFC 8032): signs deletion-compliance reports so auditors can verify them offline.
public struct Ed25519PrivateKey: Sendable {
    public let key: EVPKey

    public static func generate() throws(CryptoError) -> Ed25519PrivateKey {
        Ed25519PrivateKey(key: try EVPKey.generate(algorithm: "ED25519"))
    }

    init(key: EVPKey) { self.key = key }

    /// Reads a PKCS#8 PEM private key and checks that it is Ed25519.
    public init(pem: [UInt8]) throws(CryptoError) {
        let key = try PEM.readPrivateKey(pem)
        guard key.isA("ED25519") else { throw CryptoError(.invalidKey, "PEM key is not an Ed25519 key") }
        self.key = key
    }

    /// PKCS#8 PEM, unencrypted: callers write it with mode 0600.
    public func pemPKCS8() throws(CryptoError) -> [UInt8] { try PEM.writePrivateKey(key) }

    public var publicKey: Ed25519PublicKey { Ed25519PublicKey(key: key) }

    /// A 64-byte PureEdDSA signature (RFC 8032 §5.1.6); no pre-hash, so the digest is nil.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try SignatureOperation.sign(key: key, digest: nil, message: message)
    }
}
