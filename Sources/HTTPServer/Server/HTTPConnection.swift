import HTTP1

/// One client connection's state, owned and touched only by its event-loop thread.
final class HTTPConnection {
    /// Where the connection is in its request/response cycle (RFC 9112 §9).
    enum Phase {
        /// Between requests with nothing buffered; the idle deadline runs.
        case idle
        /// Header bytes are arriving; the total header deadline runs.
        case readingHead
        /// Body bytes are arriving; the total body deadline runs.
        case readingBody
        /// The handler is running; no further request is parsed until its response is queued.
        case awaitingResponse(omitBody: Bool, version: HTTPVersion, wantsKeepAlive: Bool)
        /// The final response is queued; close once it is flushed.
        case closingAfterFlush
        /// Write side shut down; discard input until EOF or the linger deadline (staged close, RFC 9112 §9.6).
        case draining
    }

    let id: UInt64
    let transport: any ConnectionTransport
    var parser: HTTPRequestParser
    var phase: Phase
    var outbound: [UInt8] = []
    var outboundIndex = 0
    var requestsServed = 0
    var phaseDeadline: UInt64?
    var writeDeadline: UInt64?
    var registeredInterest: UInt32 = 0
    var peerClosed = false
    /// The transport's last read could not proceed until the socket is writable (a TLS handshake flight).
    var readWaitsForWritable = false
    /// The transport's last write could not proceed until the socket is readable (a TLS handshake message).
    var writeWaitsForReadable = false
    var isClosed = false

    init(id: UInt64, transport: any ConnectionTransport, limits: HTTPServerLimits, phase: Phase) {
        self.id = id
        self.transport = transport
        self.parser = HTTPRequestParser(limits: limits)
        self.phase = phase
    }

    var pendingOutboundCount: Int { outbound.count - outboundIndex }
}
