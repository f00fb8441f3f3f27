import COpenSSL
import CShims
import Glibc

/// TLS over one accepted non-blocking socket: the server side of the handshake runs inside the first reads
/// (and writes), so the event loop never blocks and the handshake is bounded by the same header-read deadline
/// that starts at accept (STYLE.md HTTP checklist: "non-blocking handshake under the same deadline").
///
/// OpenSSL may need to write while the caller reads (handshake flights, TLS 1.3 session tickets, key updates)
/// and to read while the caller writes; `SSL_ERROR_WANT_WRITE` / `SSL_ERROR_WANT_READ` are passed up as the
/// interest the event loop must wait for (SSL_get_error(3)). Used from one event-loop thread only.
public final class TLSTransport: ConnectionTransport {
    public let fileDescriptor: Int32
    private let ssl: OpaquePointer
    private var handshakeComplete = false
    private var closed = false

    /// Takes ownership of a connected, non-blocking socket and of `session` (a fresh server `SSL`).
    init(fileDescriptor: Int32, session ssl: OpaquePointer) {
        BrokenPipe.ignore()
        self.fileDescriptor = fileDescriptor
        self.ssl = ssl
        _ = SSL_set_fd(ssl, fileDescriptor)
        SSL_set_accept_state(ssl)
    }

    deinit {
        close()
    }

    public var isEstablished: Bool { handshakeComplete }

    /// Decrypted bytes OpenSSL already holds: epoll cannot report them, so the loop reads again while this is
    /// true.
    public var hasBufferedInput: Bool { !closed && SSL_pending(ssl) > 0 }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportIOResult {
        guard !closed else { return .failed(EBADF) }
        if !handshakeComplete, let blocked = continueHandshake() { return blocked }
        OpenSSLErrors.clear()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 { return .transferred(Int(count)) }
        return outcome(of: count)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> TransportIOResult {
        guard !closed else { return .failed(EBADF) }
        if !handshakeComplete, let blocked = continueHandshake() { return blocked }
        guard !bytes.isEmpty else { return .wouldBlock(.write) }
        OpenSSLErrors.clear()
        let count = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        if count > 0 { return .transferred(Int(count)) }
        let result = outcome(of: count)
        // The peer's close_notify while we still have bytes to send: they can no longer be delivered.
        if case .endOfStream = result { return .failed(EPIPE) }
        return result
    }

    /// Sends close_notify (RFC 8446 §6.1) when the handshake finished, then half-closes the socket.
    public func shutdownWrite() {
        guard !closed else { return }
        if handshakeComplete {
            OpenSSLErrors.clear()
            _ = SSL_shutdown(ssl)
            OpenSSLErrors.clear()
        }
        _ = Glibc.shutdown(fileDescriptor, Int32(SHUT_WR))
    }

    public func close() {
        guard !closed else { return }
        closed = true
        SSL_free(ssl)
        _ = Glibc.close(fileDescriptor)
    }

    /// nil once the handshake is done; otherwise what the caller must wait for.
    private func continueHandshake() -> TransportIOResult? {
        OpenSSLErrors.clear()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeComplete = true
            return nil
        }
        return outcome(of: result)
    }

    private func outcome(of result: Int32) -> TransportIOResult {
        let code = SSL_get_error(ssl, result)
        let savedErrno = errno
        switch code {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock(.read)
        case SSL_ERROR_WANT_WRITE:
            return .wouldBlock(.write)
        case SSL_ERROR_ZERO_RETURN:
            return .endOfStream
        case SSL_ERROR_SYSCALL:
            OpenSSLErrors.clear()
            if savedErrno == EAGAIN || savedErrno == EWOULDBLOCK { return .wouldBlock(.read) }
            return savedErrno == 0 ? .endOfStream : .failed(savedErrno)
        default:
            // A protocol failure (bad handshake, refused version, decryption error): no HTTP can follow.
            OpenSSLErrors.clear()
            return .failed(EPROTO)
        }
    }
}
