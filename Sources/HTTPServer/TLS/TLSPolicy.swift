/// What this service accepts on its public TLS listener, and what the endpoint check demands of an endpoint.
///
/// Apple's server-to-server notification endpoint must speak TLS 1.2 or later, and App Transport Security
/// (Apple, "Preventing Insecure Network Connections", NSAppTransportSecurity) further requires forward-secret
/// ECDHE key exchange with an AEAD cipher, SHA-2 certificate signatures, and RSA keys of at least 2048 bits or
/// EC keys of at least 256 bits. RFC 9325 §4.2 recommends the same TLS 1.2 suites.
public enum TLSPolicy {
    /// Oldest protocol the server negotiates. RFC 8996 deprecates TLS 1.0 and 1.1.
    public static let minimumVersion = TLSProtocolVersion.tls1_2

    /// TLS 1.2 suites, in server preference order: ECDHE (forward secrecy) with AES-GCM or ChaCha20-Poly1305
    /// (AEAD) only (RFC 9325 §4.2). OpenSSL's cipher-list syntax.
    public static let tls12CipherList =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
        + "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
        + "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    /// TLS 1.3 suites (RFC 8446 §9.1 mandatory plus ChaCha20); every TLS 1.3 suite is forward-secret AEAD.
    public static let tls13CipherSuites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

    /// Smallest RSA modulus ATS accepts, in bits.
    public static let minimumRSAKeyBits = 2048

    /// Smallest EC key ATS accepts, in bits (P-256).
    public static let minimumECKeyBits = 256
}
