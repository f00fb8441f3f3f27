import COpenSSL
import CShims
import Foundation
import Synchronization

/// The TLS side of the public listener: a certificate chain and its private key loaded from PEM files into an
/// OpenSSL context that allows only TLS 1.2+ with forward-secret AEAD suites, without compression (CRIME,
/// RFC 7457 §2.6) or renegotiation (RFC 7457 §2.2).
///
/// The certificate is validated when loaded: an expired or not-yet-valid certificate, a key that does not
/// belong to the certificate, an RSA key under 2048 bits or EC under 256, or a SHA-1 signature is refused with
/// one line naming the file, so the service refuses to start rather than serve something Apple's servers will
/// refuse (DOMAIN.md §5). `reload()` re-reads the same files and swaps the context for new connections;
/// connections already established keep the context they started with.
public final class TLSServerContext: Sendable {
    /// How strictly `init` and `reload()` check the certificate.
    public enum Validation: Sendable, Hashable {
        /// Refuse expired, not-yet-valid, weak-key and SHA-1-signed certificates (production).
        case enforced
        /// Load whatever parses and matches its key, with OpenSSL's security level lowered to 0 so weak keys
        /// and SHA-1 signatures load too. Only for tests and diagnostics that must reproduce a broken endpoint.
        case disabledForTesting
    }

    public let certificateChainFile: String
    public let privateKeyFile: String
    public let validation: Validation

    private struct Loaded: Sendable {
        var handle: SSLContextHandle
        var leaf: TLSCertificateSummary
    }

    private let current: Mutex<Loaded>

    /// Loads and validates the chain (leaf first, then intermediates) and the key.
    public init(certificateChainFile: String, privateKeyFile: String, validation: Validation = .enforced)
        throws(TLSConfigurationError)
    {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.validation = validation
        let loaded = try Self.load(
            certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile, validation: validation)
        current = Mutex(loaded)
    }

    /// Re-reads both files and, if they pass the same validation as at start, serves them to every connection
    /// accepted from now on. On failure the previous certificate stays in service and the error says why.
    public func reload() throws(TLSConfigurationError) {
        let loaded = try Self.load(
            certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile, validation: validation)
        current.withLock { $0 = loaded }
    }

    /// The certificate currently served to new connections.
    public var certificate: TLSCertificateSummary { current.withLock { $0.leaf } }

    /// Whole days until the served certificate expires (negative once expired), for `/readyz` and a metric.
    public func daysUntilExpiry(at now: Date = Date()) -> Int {
        certificate.daysUntilExpiry(at: now)
    }

    /// A new server-side `SSL` for one accepted connection, from the current context; nil (with the OpenSSL
    /// error queue cleared) if OpenSSL is out of memory.
    func makeSession() -> OpaquePointer? {
        let handle = current.withLock { $0.handle }
        guard let ssl = SSL_new(handle.pointer) else {
            OpenSSLErrors.clear()
            return nil
        }
        return ssl
    }

    // MARK: Loading

    private static func load(certificateChainFile: String, privateKeyFile: String, validation: Validation)
        throws(TLSConfigurationError) -> Loaded
    {
        OpenSSLErrors.clear()
        guard let pointer = SSL_CTX_new(TLS_server_method()) else {
            throw TLSConfigurationError(.contextSetupFailed, "cannot create a TLS context: \(OpenSSLErrors.drain())")
        }
        let handle = SSLContextHandle(taking: pointer)
        try configureProtocol(pointer)
        // Load at security level 0 so a weak key or SHA-1 signature reaches `validate` and its clear message
        // instead of failing inside OpenSSL as "ee key too small"; the configured level is restored afterwards.
        let configuredSecurityLevel = SSL_CTX_get_security_level(pointer)
        SSL_CTX_set_security_level(pointer, 0)

        guard SSL_CTX_use_certificate_chain_file(pointer, certificateChainFile) == 1 else {
            throw TLSConfigurationError(
                .unreadableCertificate,
                "TLS certificate \(certificateChainFile): cannot load a PEM certificate chain (\(OpenSSLErrors.drain()))"
            )
        }
        // Read the key separately so "not a key" and "not this certificate's key" get different messages
        // (`SSL_CTX_use_PrivateKey` itself fails on a mismatch).
        guard let keyFile = BIO_new_file(privateKeyFile, "r") else {
            throw TLSConfigurationError(
                .unreadablePrivateKey, "TLS private key \(privateKeyFile): cannot open (\(OpenSSLErrors.drain()))")
        }
        let key = PEM_read_bio_PrivateKey(keyFile, nil, nil, nil)
        BIO_free(keyFile)
        guard let key else {
            throw TLSConfigurationError(
                .unreadablePrivateKey,
                "TLS private key \(privateKeyFile): cannot load a PEM private key (\(OpenSSLErrors.drain()))")
        }
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(pointer, key) == 1, SSL_CTX_check_private_key(pointer) == 1 else {
            OpenSSLErrors.clear()
            throw TLSConfigurationError(
                .keyDoesNotMatchCertificate,
                "TLS private key \(privateKeyFile) does not match the certificate in \(certificateChainFile)")
        }
        guard let leafPointer = SSL_CTX_get0_certificate(pointer) else {
            throw TLSConfigurationError(
                .unreadableCertificate, "TLS certificate \(certificateChainFile): no certificate in the file")
        }
        let leaf = X509Certificate.summary(of: leafPointer)
        if validation == .enforced {
            try validate(leaf, file: certificateChainFile)
            SSL_CTX_set_security_level(pointer, configuredSecurityLevel)
        }
        return Loaded(handle: handle, leaf: leaf)
    }

    private static func validate(_ leaf: TLSCertificateSummary, file: String) throws(TLSConfigurationError) {
        let now = Date()
        let stamp = ISO8601DateFormatter()
        if leaf.isExpired(at: now) {
            throw TLSConfigurationError(
                .certificateExpired,
                "TLS certificate \(file) expired at \(stamp.string(from: leaf.notAfter)); renew it before starting")
        }
        if leaf.isNotYetValid(at: now) {
            throw TLSConfigurationError(
                .certificateNotYetValid,
                "TLS certificate \(file) is not valid before \(stamp.string(from: leaf.notBefore)); check the clock")
        }
        if !leaf.hasStrongKey {
            throw TLSConfigurationError(
                .weakKey,
                "TLS certificate \(file) has a \(leaf.keyDescription)-bit key; Apple requires RSA >= "
                    + "\(TLSPolicy.minimumRSAKeyBits) or EC >= \(TLSPolicy.minimumECKeyBits)")
        }
        if leaf.hasWeakSignatureDigest {
            throw TLSConfigurationError(
                .weakSignature,
                "TLS certificate \(file) is signed with \(leaf.signatureAlgorithm); Apple requires a SHA-2 signature")
        }
    }

    private static func configureProtocol(_ context: OpaquePointer) throws(TLSConfigurationError) {
        let options =
            shim_SSL_OP_NO_COMPRESSION | shim_SSL_OP_NO_RENEGOTIATION | shim_SSL_OP_CIPHER_SERVER_PREFERENCE
            | shim_SSL_OP_IGNORE_UNEXPECTED_EOF
        _ = shim_SSL_CTX_set_options(context, options)
        // Partial writes and a moving buffer: the event loop retries a blocked write from wherever its outbound
        // array now lives, possibly with more bytes appended.
        _ = shim_SSL_CTX_set_mode(
            context,
            shim_SSL_MODE_ENABLE_PARTIAL_WRITE | shim_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                | shim_SSL_MODE_RELEASE_BUFFERS)
        guard shim_SSL_CTX_set_min_proto_version(context, TLSPolicy.minimumVersion.openSSLValue) == 1,
            SSL_CTX_set_cipher_list(context, TLSPolicy.tls12CipherList) == 1,
            SSL_CTX_set_ciphersuites(context, TLSPolicy.tls13CipherSuites) == 1
        else {
            throw TLSConfigurationError(
                .contextSetupFailed, "cannot apply the TLS protocol policy: \(OpenSSLErrors.drain())")
        }
    }
}
