import COpenSSL

/// A NIST P-256 public key: verifies ES256 signatures (RFC 7518 §3.4), e.g. the client secrets a stand-in for
/// Apple's REST API receives.
public struct P256PublicKey: Sendable {
    public let key: EVPKey

    init(key: EVPKey) { self.key = key }

    /// Reads SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`) and checks that the key is on P-256.
    public init(pem: [UInt8]) throws(CryptoError) {
        let key = try PEM.readPublicKey(pem)
        guard key.isP256 else { throw CryptoError(.invalidKey, "the public key is not an EC key on P-256") }
        self.key = key
    }

    /// Builds the key from the affine coordinates of a JWK (`crv` `P-256`, `x`, `y`: RFC 7518 §6.2.1), each
    /// exactly 32 octets. OpenSSL refuses a point that is not on the curve.
    public init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        let width = ECDSASignatureEncoding.p256ComponentLength
        guard x.count == width, y.count == width else {
            throw CryptoError(.invalidKey, "P-256 coordinates are \(width) octets each")
        }
        let point = [0x04] + x + y
        // The parameter names and values must outlive the builder (STYLE.md, interop facts): keep every C
        // string and buffer alive across the whole construction.
        let built: OpaquePointer? = "group".withCString { groupName in
            "pub".withCString { publicName in
                EVPKey.p256GroupName.withCString { groupValue in
                    point.withUnsafeBufferPointer { pointBytes -> OpaquePointer? in
                        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
                        defer { OSSL_PARAM_BLD_free(builder) }
                        guard
                            OSSL_PARAM_BLD_push_utf8_string(builder, groupName, groupValue, 0) == 1,
                            OSSL_PARAM_BLD_push_octet_string(
                                builder, publicName, pointBytes.baseAddress, pointBytes.count) == 1,
                            let params = OSSL_PARAM_BLD_to_param(builder)
                        else { return nil }
                        defer { OSSL_PARAM_free(params) }
                        return EVPKey.publicKey(algorithm: "EC", from: params)
                    }
                }
            }
        }
        guard let built else { throw .openSSL(.invalidKey, "the coordinates are not a point on P-256") }
        self.key = EVPKey(taking: built)
    }

    /// SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    public func pem() throws(CryptoError) -> [UInt8] { try PEM.writePublicKey(key) }

    /// The affine coordinates, 32 octets each (the JWK members `x` and `y` before base64url).
    public func coordinates() throws(CryptoError) -> (x: [UInt8], y: [UInt8]) {
        let point = try key.encodedP256PublicPoint()
        let width = ECDSASignatureEncoding.p256ComponentLength
        return (Array(point[1...width]), Array(point[(width + 1)...]))
    }

    /// Verifies a JOSE `r ‖ s` ES256 signature (RFC 7518 §3.4). Anything but exactly 64 octets is false, and so
    /// is a DER signature: the JOSE form is the only one a JWS may carry.
    public func verifyES256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let der = ECDSASignatureEncoding.der(fromJOSE: signature) else { return false }
        return SignatureOperation.verify(key: key, digest: EVP_sha256(), signature: der, message: message)
    }
}
