import COpenSSL

/// A NIST P-256 private key: the `.p8` key Apple issues for Sign in with Apple, which signs the ES256 client
/// secret of every REST call (Apple, "Creating a client secret").
///
/// Apple's file is PKCS#8 PEM (`BEGIN PRIVATE KEY`, RFC 5208 / RFC 7468 §10). A key on any other curve, an RSA
/// key or an encrypted key is refused when loaded, so a wrong file fails at startup with a clear error rather
/// than as `invalid_client` on the first call.
public struct P256PrivateKey: Sendable {
    public let key: EVPKey

    init(key: EVPKey) { self.key = key }

    /// Generates a fresh key (tests, the local stand-in for Apple's REST API).
    public static func generate() throws(CryptoError) -> P256PrivateKey {
        let key = try EVPKey.generate(algorithm: "EC") { context in
            EVP_PKEY_CTX_set_group_name(context, EVPKey.p256GroupName)
        }
        return P256PrivateKey(key: key)
    }

    /// Reads an unencrypted PEM private key (PKCS#8 as Apple ships it, or SEC 1 `BEGIN EC PRIVATE KEY`) and
    /// checks that it is on P-256.
    public init(pem: [UInt8]) throws(CryptoError) {
        let key = try EVPKey.readUnencryptedPrivateKey(pem: pem)
        guard key.isA("EC") else {
            throw CryptoError(.invalidKey, "the private key is not an EC key; Sign in with Apple keys are P-256")
        }
        guard key.isP256 else {
            throw CryptoError(.invalidKey, "the EC private key is not on P-256, the only curve of ES256")
        }
        self.key = key
    }

    /// PKCS#8 PEM (`BEGIN PRIVATE KEY`), unencrypted: callers write it with mode 0600.
    public func pemPKCS8() throws(CryptoError) -> [UInt8] { try PEM.writePrivateKey(key) }

    /// The matching public key, sharing the same OpenSSL object.
    public var publicKey: P256PublicKey { P256PublicKey(key: key) }

    /// ECDSA over P-256 with SHA-256, in the 64-octet JOSE form `r ‖ s` (JWS `ES256`, RFC 7518 §3.4). OpenSSL
    /// hashes `message` and returns DER, which is converted here; each call uses a fresh random nonce.
    public func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let der = try SignatureOperation.sign(key: key, digest: EVP_sha256(), message: message)
        guard let jose = ECDSASignatureEncoding.jose(fromDER: der) else {
            throw CryptoError(.signingFailed, "OpenSSL returned an ECDSA signature that is not P-256 DER")
        }
        return jose
    }
}
