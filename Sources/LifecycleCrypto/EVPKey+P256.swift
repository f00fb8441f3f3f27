import COpenSSL

extension EVPKey {
    /// The OpenSSL name of NIST P-256 (`secp256r1`, RFC 5480 §2.1.1.1), the only curve of JWS `ES256`.
    static let p256GroupName = "prime256v1"

    /// True for an EC key on P-256. Any other curve (P-384, secp256k1, …) is false: `ES256` is defined for
    /// P-256 alone (RFC 7518 §3.4).
    var isP256: Bool {
        guard isA("EC") else { return false }
        return withKey { key in
            var buffer = [CChar](repeating: 0, count: 64)
            var length = 0
            let status = "group".withCString { name in
                EVP_PKEY_get_utf8_string_param(key, name, &buffer, buffer.count, &length)
            }
            guard status == 1, length < buffer.count else {
                OpenSSLErrorQueue.clear()
                return false
            }
            let group = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return group == Self.p256GroupName || group == "P-256" || group == "secp256r1"
        }
    }

    /// The uncompressed SEC 1 point `04 ‖ x ‖ y` of an EC key (SEC 1 v2 §2.3.3).
    func encodedP256PublicPoint() throws(CryptoError) -> [UInt8] {
        let point: [UInt8]? = withKey { key in
            var buffer = [UInt8](repeating: 0, count: 1 + 2 * ECDSASignatureEncoding.p256ComponentLength)
            var length = 0
            let status = "encoded-pub-key".withCString { name in
                EVP_PKEY_get_octet_string_param(key, name, &buffer, buffer.count, &length)
            }
            guard status == 1, length == buffer.count, buffer[0] == 0x04 else {
                OpenSSLErrorQueue.clear()
                return nil
            }
            return buffer
        }
        guard let point else { throw CryptoError(.encodingFailed, "cannot export the P-256 public point") }
        return point
    }

    /// Reads a PEM private key without ever asking for a passphrase: OpenSSL's default callback would prompt on
    /// the controlling terminal for an encrypted key, which a service must never do. An encrypted key fails.
    static func readUnencryptedPrivateKey(pem: [UInt8]) throws(CryptoError) -> EVPKey {
        try MemoryBIO.reading(pem) { bio throws(CryptoError) in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil) else {
                throw .openSSL(.decodingFailed, "not an unencrypted PEM private key")
            }
            return EVPKey(taking: key)
        }
    }
}
