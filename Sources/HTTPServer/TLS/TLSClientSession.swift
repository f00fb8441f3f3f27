import COpenSSL
import CShims
import Glibc

/// The client side of TLS over one connected, blocking socket whose send/receive timeouts bound every wait.
/// After `init` the handshake is done and the negotiated parameters and peer certificate can be read.
/// Not for concurrent use.
public final class TLSClientSession {
    /// What chain verification against the trust store found.
    public enum ChainVerification: Sendable, Hashable {
        case trusted
        /// OpenSSL's verification error text (`certificate has expired`, `unable to get local issuer
        /// certificate`).
        case untrusted(String)
    }

    private let context: SSLContextHandle
    private let ssl: OpaquePointer
    private var closed = false

    public let protocolVersion: TLSProtocolVersion?
    /// OpenSSL's name for the negotiated protocol (`TLSv1.3`).
    public let protocolName: String
    /// The negotiated cipher suite's OpenSSL name (`TLS_AES_128_GCM_SHA256`, `ECDHE-RSA-AES128-GCM-SHA256`).
    public let cipherName: String
    /// ECDHE (or TLS 1.3) key exchange with an AEAD cipher: forward secrecy plus authenticated encryption.
    public let isForwardSecretAEAD: Bool
    /// The leaf certificate the server presented.
    public let peerCertificate: TLSCertificateSummary?
    public let chainVerification: ChainVerification
    /// Whether the leaf certificate names the host (`X509_check_host` / `X509_check_ip_asc`).
    public let hostNameMatches: Bool
    /// Until when a call a signal cut short is made again (``interrupted(_:_:)``); after it, the call times
    /// out. The owner sets it for each exchange, so signals arriving more often than the socket's timeout
    /// cannot hold a silent peer's exchange open for good.
    public var retryDeadline: ContinuousClock.Instant

    /// Runs the handshake on `fileDescriptor` (connected, blocking, with SO_RCVTIMEO/SO_SNDTIMEO set), making
    /// a call a signal cut short again until `deadline`. The session does not own the descriptor.
    public init(
        fileDescriptor: Int32, host: String, configuration: TLSClientConfiguration, deadline: ContinuousClock.Instant
    ) throws(HTTPClientError) {
        retryDeadline = deadline
        BrokenPipe.ignore()
        OpenSSLErrors.clear()
        guard let contextPointer = SSL_CTX_new(TLS_client_method()) else {
            throw .tlsHandshakeFailed("cannot create a TLS context: \(OpenSSLErrors.drain())")
        }
        context = SSLContextHandle(taking: contextPointer)
        let name = configuration.serverName ?? host
        try Self.configure(contextPointer, configuration)
        guard let ssl = SSL_new(contextPointer) else {
            throw .tlsHandshakeFailed("cannot create a TLS session: \(OpenSSLErrors.drain())")
        }
        self.ssl = ssl
        _ = SSL_set_fd(ssl, fileDescriptor)
        if !X509Certificate.isIPAddress(name) { _ = shim_SSL_set_tlsext_host_name(ssl, name) }
        if configuration.verifiesPeer {
            let hostSet =
                X509Certificate.isIPAddress(name)
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) : SSL_set1_host(ssl, name)
            guard hostSet == 1 else {
                SSL_free(ssl)
                throw .tlsHandshakeFailed("cannot set the expected host name: \(OpenSSLErrors.drain())")
            }
        }

        var result: Int32
        var code: Int32
        var savedErrno: Int32
        repeat {
            OpenSSLErrors.clear()
            result = SSL_connect(ssl)
            savedErrno = errno
            code = result == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl, result)
        } while Self.interrupted(code, savedErrno, until: deadline)
        if result != 1 {
            var detail = OpenSSLErrors.drain()
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK, configuration.verifiesPeer {
                detail = String(cString: X509_verify_cert_error_string(verify))
            }
            SSL_free(ssl)
            if code == SSL_ERROR_SYSCALL, savedErrno == EAGAIN || savedErrno == EWOULDBLOCK { throw .timedOut }
            if code == SSL_ERROR_SYSCALL, detail == "no detail" {
                detail = savedErrno == 0 ? "the server closed the connection" : String(cString: strerror(savedErrno))
            }
            throw .tlsHandshakeFailed(detail)
        }

        protocolName = String(cString: SSL_get_version(ssl))
        protocolVersion = TLSProtocolVersion(openSSLValue: SSL_version(ssl))
        if let cipher = SSL_get_current_cipher(ssl) {
            cipherName = String(cString: SSL_CIPHER_get_name(cipher))
            let exchange = SSL_CIPHER_get_kx_nid(cipher)
            let forwardSecret = exchange == NID_kx_ecdhe || exchange == NID_kx_dhe || exchange == NID_kx_any
            isForwardSecretAEAD = forwardSecret && SSL_CIPHER_is_aead(cipher) == 1
        } else {
            cipherName = "none"
            isForwardSecretAEAD = false
        }
        if let leaf = SSL_get1_peer_certificate(ssl) {
            peerCertificate = X509Certificate.summary(of: leaf)
            hostNameMatches = X509Certificate.matches(leaf, host: name)
            X509_free(leaf)
        } else {
            peerCertificate = nil
            hostNameMatches = false
        }
        let verify = SSL_get_verify_result(ssl)
        chainVerification =
            verify == X509_V_OK ? .trusted : .untrusted(String(cString: X509_verify_cert_error_string(verify)))
    }

    deinit {
        if !closed {
            closed = true
            SSL_free(ssl)
        }
    }

    /// Writes all of `bytes`.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            OpenSSLErrors.clear()
            let count = SSL_write(ssl, bytes.baseAddress! + offset, Int32(clamping: bytes.count - offset))
            let savedErrno = errno
            if count > 0 {
                offset += Int(count)
                continue
            }
            let code = SSL_get_error(ssl, count)
            OpenSSLErrors.clear()
            if interrupted(code, savedErrno) { continue }
            if code == SSL_ERROR_SYSCALL, savedErrno == EAGAIN || savedErrno == EWOULDBLOCK { throw .timedOut }
            if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { throw .timedOut }
            throw .sendFailed(errno: savedErrno == 0 ? EPIPE : savedErrno)
        }
    }

    /// Reads some bytes; 0 at the end of the stream.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPClientError) -> Int {
        var count: Int32
        var code: Int32
        var savedErrno: Int32
        repeat {
            OpenSSLErrors.clear()
            count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
            savedErrno = errno
            if count > 0 { return Int(count) }
            code = SSL_get_error(ssl, count)
            OpenSSLErrors.clear()
        } while interrupted(code, savedErrno)
        switch code {
        case SSL_ERROR_ZERO_RETURN:
            return 0
        case SSL_ERROR_SYSCALL:
            if savedErrno == EAGAIN || savedErrno == EWOULDBLOCK { throw .timedOut }
            if savedErrno == 0 { return 0 }
            throw .receiveFailed(errno: savedErrno)
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            throw .timedOut
        default:
            throw .receiveFailed(errno: EPROTO)
        }
    }

    /// A call a signal handler cut short, to be made again: the socket layer counts `EINTR` as a retryable
    /// error, so OpenSSL reports it as `SSL_ERROR_WANT_READ`/`WANT_WRITE`, the same as the
    /// `SO_RCVTIMEO`/`SO_SNDTIMEO` timeout (`EAGAIN`) on this blocking socket. Only the timeout is one, and an
    /// interrupted call past ``retryDeadline`` is one too.
    private func interrupted(_ code: Int32, _ savedErrno: Int32) -> Bool {
        Self.interrupted(code, savedErrno, until: retryDeadline)
    }

    private static func interrupted(_ code: Int32, _ savedErrno: Int32, until deadline: ContinuousClock.Instant) -> Bool
    {
        (code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE) && savedErrno == EINTR
            && ContinuousClock.now < deadline
    }

    /// Sends close_notify (best effort).
    public func shutdown() {
        OpenSSLErrors.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrors.clear()
    }

    private static func configure(_ context: OpaquePointer, _ configuration: TLSClientConfiguration)
        throws(HTTPClientError)
    {
        _ = shim_SSL_CTX_set_options(context, shim_SSL_OP_NO_COMPRESSION | shim_SSL_OP_IGNORE_UNEXPECTED_EOF)
        if configuration.acceptsWeakPeerCertificates { SSL_CTX_set_security_level(context, 0) }
        if configuration.offersLegacyAlgorithms {
            SSL_CTX_set_security_level(context, 0)
            _ = SSL_CTX_set_cipher_list(context, "ALL:@SECLEVEL=0")
        }
        guard shim_SSL_CTX_set_min_proto_version(context, configuration.minimumVersion.openSSLValue) == 1,
            shim_SSL_CTX_set_max_proto_version(context, configuration.maximumVersion?.openSSLValue ?? 0) == 1
        else { throw .tlsHandshakeFailed("cannot set the protocol versions: \(OpenSSLErrors.drain())") }
        let loaded =
            if let file = configuration.trustedCAFile {
                SSL_CTX_load_verify_locations(context, file, nil)
            } else {
                SSL_CTX_set_default_verify_paths(context)
            }
        guard loaded == 1 else {
            throw .tlsHandshakeFailed(
                "cannot load trusted certificates from \(configuration.trustedCAFile ?? "the system store"): "
                    + OpenSSLErrors.drain())
        }
        SSL_CTX_set_verify(context, configuration.verifiesPeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
    }
}
