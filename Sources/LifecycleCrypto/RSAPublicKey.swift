import COpenSSL

/// An RSA public key: what a JWKS entry becomes, and what verifies RS256 signatures (RFC 7518 §3.3).
public struct RSAPublicKey: Sendable {
    public let key: EVPKey

    init(key: EVPKey) { self.key = key }

    /// Builds the key from a JWK's big-endian modulus `n` and public exponent `e` (RFC 7518 §6.3.1) through
    /// `OSSL_PARAM_BLD` and `EVP_PKEY_fromdata`, the OpenSSL 3 way (the `RSA_*` setters are deprecated).
    public init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        guard !modulus.isEmpty, !exponent.isEmpty else {
            throw CryptoError(.invalidKey, "RSA modulus and exponent must not be empty")
        }
        guard let n = Self.bignum(modulus), let e = Self.bignum(exponent) else {
            throw .openSSL(.invalidKey, "cannot read RSA modulus or exponent")
        }
        defer {
            BN_free(n)
            BN_free(e)
        }
        // RFC 8017 §3.1: the modulus is a product of odd primes and the exponent an odd integer in 3...n-1.
        // OpenSSL builds a key from e = 0 or an even modulus without complaint; such a key is nobody's.
        guard BN_is_odd(n) == 1, BN_is_odd(e) == 1, BN_num_bits(e) >= 2, BN_cmp(e, n) < 0 else {
            throw CryptoError(.invalidKey, "RSA key is not valid: n must be odd, e odd and in 3...n-1 (RFC 8017 §3.1)")
        }
        // The parameter names must outlive the builder: keep both C strings alive across every call.
        let built: OpaquePointer? = "n".withCString { nName in
            "e".withCString { eName in
                guard let builder = OSSL_PARAM_BLD_new() else { return nil }
                defer { OSSL_PARAM_BLD_free(builder) }
                guard OSSL_PARAM_BLD_push_BN(builder, nName, n) == 1,
                    OSSL_PARAM_BLD_push_BN(builder, eName, e) == 1,
                    let params = OSSL_PARAM_BLD_to_param(builder)
                else { return nil }
                defer { OSSL_PARAM_free(params) }
                return EVPKey.publicKey(algorithm: "RSA", from: params)
            }
        }
        guard let built else { throw .openSSL(.invalidKey, "cannot build an RSA public key from n and e") }
        self.key = EVPKey(taking: built)
    }

    /// SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    public func pem() throws(CryptoError) -> [UInt8] { try PEM.writePublicKey(key) }

    /// Modulus length in bits; keys under 2048 bits are refused by the verifier (RFC 7518 §3.3).
    public var bitCount: Int { key.bitCount }

    /// The JWK members `n` and `e` as unsigned big-endian bytes without leading zeros (RFC 7518 §6.3.1).
    public func components() throws(CryptoError) -> (modulus: [UInt8], exponent: [UInt8]) {
        let result: (modulus: [UInt8], exponent: [UInt8])? = key.withKey { pkey in
            guard let n = Self.bignumParameter(pkey, "n"), let e = Self.bignumParameter(pkey, "e") else {
                return nil
            }
            return (n, e)
        }
        guard let result else { throw .openSSL(.encodingFailed, "cannot read RSA key components") }
        return result
    }

    /// JWK `n` and `e` members, base64url without padding.
    public func jwkComponents() throws(CryptoError) -> (n: String, e: String) {
        let (modulus, exponent) = try components()
        return (Base64URL.encode(modulus), Base64URL.encode(exponent))
    }

    /// Verifies an RSASSA-PKCS1-v1_5 SHA-256 signature (JWS `RS256`, RFC 7518 §3.3). Only a return of exactly
    /// 1 from `EVP_DigestVerify` is success; anything else (0, negative) is a failure, and the queue is cleared.
    public func verifyRS256(signature: [UInt8], message: [UInt8]) -> Bool {
        SignatureOperation.verify(key: key, digest: EVP_sha256(), signature: signature, message: message)
    }

    private static func bignum(_ bytes: [UInt8]) -> OpaquePointer? {
        bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    }

    private static func bignumParameter(_ pkey: OpaquePointer, _ name: String) -> [UInt8]? {
        var value: OpaquePointer?
        let status = name.withCString { EVP_PKEY_get_bn_param(pkey, $0, &value) }
        guard status == 1, let value else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { BN_free(value) }
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(value)) + 7) / 8)
        let written = BN_bn2bin(value, &bytes)
        guard Int(written) == bytes.count else { return nil }
        return bytes
    }
}
