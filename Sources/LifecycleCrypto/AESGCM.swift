import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) through OpenSSL's EVP interface: authenticated encryption of the personal
/// values the service keeps, and of the data keys that seal them.
///
/// A sealed box is `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`. The nonce is 96 random bits from
/// ``SecureRandom`` for every seal: SP 800-38D §8.2.2 allows random nonces up to 2³² seals per key, far above
/// what one subject's key or the master key ever seals. The associated data is authenticated but not stored:
/// the caller rebuilds it from where the box is kept (table, column, subject), so a box copied to another row
/// does not open there.
public enum AESGCM {
    public static let keyByteCount = 32
    public static let nonceByteCount = 12
    public static let tagByteCount = 16
    /// Bytes a box adds to its plaintext.
    public static let overhead = nonceByteCount + tagByteCount

    /// The cipher, fetched from the default provider once (OpenSSL 3 `EVP_CIPHER_fetch(3)`): passing
    /// `EVP_aes_256_gcm()` to every init makes OpenSSL look it up again each time, behind a lock.
    /// Immutable after the fetch and safe to share between threads (OpenSSL 3 threading rules).
    nonisolated(unsafe) private static let cipher: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)

    /// Encrypts and authenticates `plaintext` under `key` (32 bytes) and `associatedData`.
    public static func seal(
        _ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8], nonce: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        guard key.count == keyByteCount else { throw CryptoError(.invalidKey, "AES-256-GCM needs a 32-byte key") }
        let nonce = nonce ?? SecureRandom.bytes(count: nonceByteCount)
        guard nonce.count == nonceByteCount else { throw CryptoError(.invalidKey, "AES-GCM nonce must be 12 bytes") }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL(.encryptionFailed, "EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + overhead)
        var written: Int32 = 0
        var final: Int32 = 0
        let sealed = key.withUnsafeBufferPointer { key in
            nonce.withUnsafeBufferPointer { nonce in
                associatedData.withUnsafeBufferPointer { aad in
                    plaintext.withUnsafeBufferPointer { input in
                        output.withUnsafeMutableBufferPointer { out -> Bool in
                            let body = out.baseAddress! + nonceByteCount
                            guard EVP_EncryptInit_ex(context, cipher ?? EVP_aes_256_gcm(), nil, nil, nil) == 1,
                                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceByteCount), nil) == 1,
                                EVP_EncryptInit_ex(context, nil, nil, key.baseAddress, nonce.baseAddress) == 1
                            else { return false }
                            var ignored: Int32 = 0
                            if aad.count > 0 {
                                guard EVP_EncryptUpdate(context, nil, &ignored, aad.baseAddress, Int32(aad.count)) == 1
                                else { return false }
                            }
                            if input.count > 0 {
                                guard
                                    EVP_EncryptUpdate(context, body, &written, input.baseAddress, Int32(input.count))
                                        == 1
                                else { return false }
                            }
                            guard EVP_EncryptFinal_ex(context, body + Int(written), &final) == 1,
                                EVP_CIPHER_CTX_ctrl(
                                    context, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount),
                                    body + Int(written) + Int(final)) == 1
                            else { return false }
                            for index in 0..<nonceByteCount { out[index] = nonce[index] }
                            return true
                        }
                    }
                }
            }
        }
        guard sealed, Int(written + final) == plaintext.count else {
            throw .openSSL(.encryptionFailed, "AES-256-GCM encryption")
        }
        return output
    }

    /// Checks and decrypts a box made by ``seal(_:key:associatedData:nonce:)``.
    ///
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when the key, the associated data or a byte of the
    ///   box differs from what sealed it; nothing of the plaintext is returned then.
    public static func open(_ box: [UInt8], key: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == keyByteCount else { throw CryptoError(.invalidKey, "AES-256-GCM needs a 32-byte key") }
        guard box.count >= overhead else {
            throw CryptoError(.authenticationFailed, "sealed value is shorter than nonce and tag")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL(.encryptionFailed, "EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let length = box.count - overhead
        var output = [UInt8](repeating: 0, count: max(length, 1))
        var written: Int32 = 0
        var final: Int32 = 0
        var tag = Array(box.suffix(tagByteCount))
        let opened = key.withUnsafeBufferPointer { key in
            box.withUnsafeBufferPointer { box in
                associatedData.withUnsafeBufferPointer { aad in
                    output.withUnsafeMutableBufferPointer { out in
                        tag.withUnsafeMutableBytes { tag -> Bool in
                            guard EVP_DecryptInit_ex(context, cipher ?? EVP_aes_256_gcm(), nil, nil, nil) == 1,
                                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceByteCount), nil) == 1,
                                EVP_DecryptInit_ex(context, nil, nil, key.baseAddress, box.baseAddress) == 1
                            else { return false }
                            var ignored: Int32 = 0
                            if aad.count > 0 {
                                guard EVP_DecryptUpdate(context, nil, &ignored, aad.baseAddress, Int32(aad.count)) == 1
                                else { return false }
                            }
                            if length > 0 {
                                guard
                                    EVP_DecryptUpdate(
                                        context, out.baseAddress, &written, box.baseAddress! + nonceByteCount,
                                        Int32(length)) == 1
                                else { return false }
                            }
                            guard
                                EVP_CIPHER_CTX_ctrl(
                                    context, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), tag.baseAddress) == 1
                            else { return false }
                            return EVP_DecryptFinal_ex(context, out.baseAddress! + Int(written), &final) == 1
                        }
                    }
                }
            }
        }
        guard opened, Int(written + final) == length else {
            OpenSSLErrorQueue.clear()
            throw CryptoError(.authenticationFailed, "sealed value did not authenticate under this key")
        }
        return Array(output.prefix(length))
    }
}
