import COpenSSL

/// PEM input and output of keys (RFC 7468): PKCS#8 for private keys, SubjectPublicKeyInfo for public keys.
enum PEM {
    static func readPrivateKey(_ pem: [UInt8]) throws(CryptoError) -> EVPKey {
        try MemoryBIO.reading(pem) { bio throws(CryptoError) in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                throw .openSSL(.decodingFailed, "not a PEM private key")
            }
            return EVPKey(taking: key)
        }
    }

    static func readPublicKey(_ pem: [UInt8]) throws(CryptoError) -> EVPKey {
        try MemoryBIO.reading(pem) { bio throws(CryptoError) in
            guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                throw .openSSL(.decodingFailed, "not a PEM public key")
            }
            return EVPKey(taking: key)
        }
    }

    /// `PEM_write_bio_PrivateKey` writes PKCS#8 (`BEGIN PRIVATE KEY`) in OpenSSL 3.
    static func writePrivateKey(_ key: EVPKey) throws(CryptoError) -> [UInt8] {
        try key.withKey { pkey throws(CryptoError) in
            try MemoryBIO.writing { bio in PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) }
        }
    }

    static func writePublicKey(_ key: EVPKey) throws(CryptoError) -> [UInt8] {
        try key.withKey { pkey throws(CryptoError) in
            try MemoryBIO.writing { bio in PEM_write_bio_PUBKEY(bio, pkey) }
        }
    }
}
