import COpenSSL

/// Owns one OpenSSL `EVP_PKEY` and frees it exactly once.
///
/// Every use goes through ``withKey(_:)``, so the C handle never escapes. Uses from several threads at once
/// take no lock of ours. Every use here only reads the key: signing and verifying, each with an `EVP_MD_CTX`
/// (and the `EVP_PKEY_CTX` it holds) of its own; reading its parameters; writing its PEM form. Nothing sets
/// a member of a key once it is made, and the keys are the providers' own (decoded, generated or made from
/// parameters), so no use fills a legacy structure. OpenSSL keeps the caches a read fills under locks of its
/// own (the RSA blinding and Montgomery values), and libssl itself signs concurrent handshakes with the one
/// key of an `SSL_CTX`. A lock per key serialised every verification of Apple's notifications under the
/// one key Apple signs them with, on however many cores. The handle is freed in `deinit`, when no use can
/// remain.
public final class EVPKey: Sendable {
    /// `nonisolated(unsafe)` because a C pointer is not `Sendable`: the pointer itself never changes, the
    /// key behind it is only read (``withKey(_:)``), and it is freed once in `deinit`.
    private nonisolated(unsafe) let pointer: OpaquePointer

    /// Takes ownership of `pointer` (one reference); it is freed when this object is released.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Runs `body` with the raw key, which it may only read. The pointer must not escape.
    func withKey<Result, Failure: Error>(
        _ body: (OpaquePointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(pointer)
    }

    /// Size of the key in bits (`EVP_PKEY_get_bits`): the RSA modulus length, 253 for Ed25519.
    public var bitCount: Int {
        withKey { Int(EVP_PKEY_get_bits($0)) }
    }

    /// True when the key belongs to `algorithm` (an OpenSSL key type name such as `RSA` or `ED25519`).
    public func isA(_ algorithm: String) -> Bool {
        withKey { key in algorithm.withCString { EVP_PKEY_is_a(key, $0) == 1 } }
    }
}

extension EVPKey {
    /// Generates a key of the OpenSSL type `algorithm`; `configure` runs between keygen-init and generate.
    static func generate(
        algorithm: String, configure: (OpaquePointer) -> Int32 = { _ in 1 }
    ) throws(CryptoError) -> EVPKey {
        guard let context = algorithm.withCString({ EVP_PKEY_CTX_new_from_name(nil, $0, nil) }) else {
            throw .openSSL(.keyGenerationFailed, "no \(algorithm) key generator")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1 else {
            throw .openSSL(.keyGenerationFailed, "cannot configure \(algorithm) key generation")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw .openSSL(.keyGenerationFailed, "\(algorithm) key generation failed")
        }
        return EVPKey(taking: key)
    }

    /// A public key of the OpenSSL type `algorithm` from its parameters (`OSSL_PARAM_BLD_to_param`'s output:
    /// RSA `n`/`e`, EC `group`/`pub`); nil when OpenSSL refuses them. The caller owns the returned `EVP_PKEY`.
    static func publicKey(algorithm: String, from params: UnsafeMutablePointer<OSSL_PARAM>) -> OpaquePointer? {
        guard let context = algorithm.withCString({ EVP_PKEY_CTX_new_from_name(nil, $0, nil) }) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        // EVP_PKEY_PUBLIC_KEY (evp.h) is a compound macro Swift cannot import; spelled out here.
        let selection = Int32(
            OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS
                | OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, params) == 1 else {
            if let key { EVP_PKEY_free(key) }
            return nil
        }
        return key
    }
}
