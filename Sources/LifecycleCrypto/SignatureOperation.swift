import COpenSSL

/// One-shot `EVP_DigestSign` / `EVP_DigestVerify` (OpenSSL 3), shared by RSA and Ed25519.
enum SignatureOperation {
    /// Signs `message`. `digest` is nil for Ed25519, which hashes internally (RFC 8032).
    /// `configure` receives the `EVP_PKEY_CTX` (padding choices) and must return 1.
    static func sign(
        key: EVPKey, digest: OpaquePointer?, message: [UInt8],
        configure: (OpaquePointer) -> Int32 = { _ in 1 }
    ) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL(.signingFailed, "cannot allocate a digest") }
        defer { EVP_MD_CTX_free(context) }
        let signature: [UInt8]? = key.withKey { pkey in
            var keyContext: OpaquePointer?
            guard EVP_DigestSignInit(context, &keyContext, digest, nil, pkey) == 1, let keyContext,
                configure(keyContext) == 1
            else { return nil }
            return message.withUnsafeBufferPointer { input -> [UInt8]? in
                var length = 0
                guard EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) == 1 else { return nil }
                var output = [UInt8](repeating: 0, count: length)
                guard EVP_DigestSign(context, &output, &length, input.baseAddress, input.count) == 1 else {
                    return nil
                }
                return Array(output.prefix(length))
            }
        }
        guard let signature else { throw .openSSL(.signingFailed, "signature failed") }
        return signature
    }

    /// True only when `EVP_DigestVerify` returns exactly 1. Any failure clears the error queue, because a bad
    /// signature is an expected outcome that must not leave state behind for the next call.
    static func verify(key: EVPKey, digest: OpaquePointer?, signature: [UInt8], message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else {
            OpenSSLErrorQueue.clear()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        let status: Int32 = key.withKey { pkey in
            guard EVP_DigestVerifyInit(context, nil, digest, nil, pkey) == 1 else { return 0 }
            return signature.withUnsafeBufferPointer { sig in
                message.withUnsafeBufferPointer { input in
                    EVP_DigestVerify(context, sig.baseAddress, sig.count, input.baseAddress, input.count)
                }
            }
        }
        guard status == 1 else {
            OpenSSLErrorQueue.clear()
            return false
        }
        return true
    }
}
