/// The outcome of one non-blocking read or write.
public enum TransportIOResult: Sendable, Hashable {
    /// This many bytes moved (always > 0).
    case transferred(Int)
    /// Nothing moved now; retry when the socket is ready for `interest`. A TLS transport may ask for `.write`
    /// during a read (handshake or renegotiation), which is why the interest is explicit.
    case wouldBlock(TransportInterest)
    /// The peer closed its sending side (reads only).
    case endOfStream
    /// The connection failed; `errno` for diagnostics.
    case failed(Int32)
}

public enum TransportInterest: Sendable, Hashable {
    case read
    case write
}

/// The byte stream under one HTTP connection, over a non-blocking file descriptor owned by the transport.
///
/// The event loop only speaks this protocol, so a TLS transport (OpenSSL over the same descriptor) can replace
/// the plain one without touching HTTP framing. Implementations are used from a single event-loop thread.
public protocol ConnectionTransport: AnyObject {
    /// The descriptor the event loop registers with epoll.
    var fileDescriptor: Int32 { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportIOResult
    func write(_ bytes: UnsafeRawBufferPointer) -> TransportIOResult
    /// Stops sending (a TLS transport sends close_notify first) while still allowing reads: the first half of a
    /// staged close (RFC 9112 §9.6).
    func shutdownWrite()
    /// Releases the descriptor. Called exactly once.
    func close()
    /// False while a security handshake is still in progress: a deadline that expires then closes the
    /// connection instead of answering 408 in a protocol the peer has not agreed to yet.
    var isEstablished: Bool { get }
    /// True when the transport holds input it already took from the socket (TLS records decrypted ahead), which
    /// epoll cannot report; the event loop keeps reading while this is true.
    var hasBufferedInput: Bool { get }
}

extension ConnectionTransport {
    public var isEstablished: Bool { true }
    public var hasBufferedInput: Bool { false }
}
