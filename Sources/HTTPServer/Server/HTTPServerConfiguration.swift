import HTTP1
import LifecycleCore

/// Where a server listens, how much it accepts, and how long it waits.
///
/// Deadlines are the RFC 9112 §9.5 "timeouts" a server sets on every phase of a connection, each a total for
/// its phase (not per read), so a client that trickles one byte per second still meets the deadline.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind, numeric IPv4 (e.g. `127.0.0.1`, `0.0.0.0`). Default `127.0.0.1`.
    public var host: String = "127.0.0.1"

    /// TCP port; 0 asks the kernel for an ephemeral port (read it back from `HTTPServer.boundPort`). Default 8080.
    public var port: Int = 8080

    /// Listen backlog passed to `listen(2)`. Default 1024.
    public var backlog: Int32 = 1024

    /// Parser limits (sizes and counts).
    public var limits: HTTPServerLimits = HTTPServerLimits()

    /// Number of epoll threads accepting and serving connections. Handlers run on Swift concurrency, so one
    /// loop is enough for this service's traffic. Default 1.
    public var eventLoopCount: Int = 1

    /// Most open client connections across all loops. A connection accepted beyond it receives a 503 with
    /// `Connection: close` and is closed at once. Default 1,024.
    public var maxConnections: Int = 1024

    /// Most requests served on one connection before the server closes it (the last response says
    /// `Connection: close`). Bounds how long one client can hold a connection. Default 1,000.
    public var maxRequestsPerConnection: Int = 1000

    /// Total time to receive a request's header section, from its first byte (or from accept for the first
    /// request). On expiry: 408 and close. Default 10 s.
    public var headerReadTimeout: Duration = .seconds(10)

    /// Total time to receive a request's body after its header section. On expiry: 408 and close. Default 30 s.
    public var bodyReadTimeout: Duration = .seconds(30)

    /// Time a keep-alive connection may sit with no request in progress before the server closes it.
    /// Default 60 s.
    public var idleTimeout: Duration = .seconds(60)

    /// Total time to flush queued response bytes to a client that stopped reading. On expiry: close.
    /// Default 30 s.
    public var writeTimeout: Duration = .seconds(30)

    /// After the server half-closes a connection (framing error, `Connection: close`, shutdown), it keeps
    /// reading and discarding for this long so the client receives the final response instead of a reset
    /// (RFC 9112 §9.6, "staged close"). Default 2 s.
    public var lingerTimeout: Duration = .seconds(2)

    /// On `shutdown()`, how long in-flight requests may take before their connections are closed anyway.
    /// Default 30 s.
    public var shutdownGracePeriod: Duration = .seconds(30)

    /// Queued response bytes on one connection above which the server stops reading further pipelined
    /// requests from it until the client drains them. Default 1 MiB.
    public var outboundHighWaterMark: Int = 1024 * 1024

    /// When `accept(2)` fails for lack of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), how long the
    /// loop stops accepting before it tries again; existing connections are served meanwhile. Default 100 ms.
    public var acceptRetryDelay: Duration = .milliseconds(100)

    /// Size of the per-loop read buffer, i.e. the most bytes taken from one socket per readiness event.
    /// Default 64 KiB.
    public var readChunkSize: Int = 64 * 1024

    /// How accepted sockets are wrapped: `.plain` (default) or `.tls(TLSServerContext)` for HTTPS. With TLS
    /// the handshake counts against `headerReadTimeout`.
    public var transport: ConnectionTransportFactory = .plain

    /// Where the server reads time: monotonic time for every deadline, wall time for the `Date` field. Tests pass
    /// a `ManualClock` to step past deadlines instead of sleeping. Default: the system clock.
    public var clock: any LifecycleClock = SystemClock()

    /// Called on the loop thread with the status code of every final response the server queues: the
    /// handler's, and the ones it gives on its own (400 for a framing error, 408, 413, 414, 431, 501, the
    /// 503 over `maxConnections`), which no handler sees. It must be quick and must not block (a counter).
    /// Default: none.
    public var responseObserver: (@Sendable (Int) -> Void)?

    public init() {}

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

extension HTTPServerConfiguration {
    /// The part of the configuration each connection's state machine enforces.
    var connectionConfiguration: HTTPConnectionStateMachine.Configuration {
        var connection = HTTPConnectionStateMachine.Configuration()
        connection.limits = limits
        connection.headerReadTimeout = headerReadTimeout
        connection.bodyReadTimeout = bodyReadTimeout
        connection.idleTimeout = idleTimeout
        connection.writeTimeout = writeTimeout
        connection.lingerTimeout = lingerTimeout
        connection.maxRequestsPerConnection = maxRequestsPerConnection
        connection.outboundHighWaterMark = outboundHighWaterMark
        return connection
    }
}
