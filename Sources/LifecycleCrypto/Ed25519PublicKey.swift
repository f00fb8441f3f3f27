import COpenSSL

/// An Ed25519 public key: 32 raw bytes (RFC 8032 §5.1.5), or SubjectPublicKeyInfo PEM.
public struct Ed25519PublicKey: Sendable {
    public static let rawByteCount = 32
    public let key: EVPKey

    init(key: EVPKey) { self.key = key }

    public init(rawBytes: [UInt8]) throws(CryptoError) {
        guard rawBytes.count == Self.rawByteCount else {
            throw CryptoError(.invalidKey, "an Ed25519 public key is \(Self.rawByteCount) bytes")
        }
        let key = rawBytes.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
        }
        guard let key else { throw .openSSL(.invalidKey, "cannot build an Ed25519 public key") }
        self.key = EVPKey(taking: key)
    }

    public init(pem: [UInt8]) throws(CryptoError) {
        let key = try PEM.readPublicKey(pem)
        guard key.isA("ED25519") else { throw CryptoError(.invalidKey, "PEM key is not an Ed25519 key") }
        self.key = key
    }

    public func pem() throws(CryptoError) -> [UInt8] { try PEM.writePublicKey(key) }

    public func rawBytes() throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.rawByteCount)
        var length = output.count
        let status = key.withKey { EVP_PKEY_get_raw_public_key($0, &output, &length) }
        guard status == 1, length == Self.rawByteCount else {
            throw .openSSL(.encodingFailed, "cannot export the Ed25519 public key")
        }
        return output
    }

    /// True only for a valid signature (`EVP_DigestVerify` returned exactly 1).
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        SignatureOperation.verify(key: key, digest: nil, signature: signature, message: message)
    }
}
