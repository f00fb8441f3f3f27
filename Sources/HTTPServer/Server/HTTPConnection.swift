import HTTP1

/// One client connection as the event loop holds it: the transport and its readiness bookkeeping, and the
/// state machine that decides everything HTTP. Owned and touched only by its event-loop thread.
final class HTTPConnection {
    let id: UInt64
    let transport: any ConnectionTransport
    var machine: HTTPConnectionStateMachine
    var registeredInterest: UInt32 = 0
    /// The transport's last read could not proceed until the socket is writable (a TLS handshake flight).
    var readWaitsForWritable = false
    /// The transport's last write could not proceed until the socket is readable (a TLS handshake message).
    var writeWaitsForReadable = false
    /// The descriptor is closed and the connection forgotten.
    var isReleased = false

    init(id: UInt64, transport: any ConnectionTransport, machine: HTTPConnectionStateMachine) {
        self.id = id
        self.transport = transport
        self.machine = machine
    }
}
