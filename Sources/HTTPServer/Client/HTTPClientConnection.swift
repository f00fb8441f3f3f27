import CShims
import Glibc
import HTTP1
import LifecycleCore

/// One blocking HTTP/1.1 connection (plain TCP, or TLS when `tls` is given), reused across requests while the
/// server keeps it alive. Used by tests, benchmarks, outbound webhooks and the endpoint check; not for
/// concurrent use (one thread at a time).
public final class HTTPClientConnection {
    public let host: String
    public let port: Int
    private let timeout: Duration
    private let tlsConfiguration: TLSClientConfiguration?
    /// The TLS session of the current connection, when TLS is configured.
    public private(set) var tls: TLSClientSession?
    /// How long the last TCP connect took (after name resolution).
    public private(set) var connectDuration: Duration = .zero
    /// How long the last TLS handshake took; zero for plain connections.
    public private(set) var handshakeDuration: Duration = .zero
    private var descriptor: Int32 = -1
    private var reader: HTTPResponseReader
    private var deadline: UInt64 = 0
    /// Measures the per-request timeout (monotonic, so a wall-clock step cannot cut a request short).
    private let clock: any LifecycleClock = SystemClock()

    /// Connects within `timeout`. The same timeout bounds each later request/response exchange.
    public init(
        host: String, port: Int, timeout: Duration = .seconds(10), limits: HTTPClientLimits = HTTPClientLimits(),
        tls: TLSClientConfiguration? = nil
    )
        throws(HTTPClientError)
    {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.tlsConfiguration = tls
        self.reader = HTTPResponseReader(limits: limits)
        try connect()
    }

    deinit { close() }

    public var isOpen: Bool { descriptor >= 0 }

    public func close() {
        tls?.shutdown()
        tls = nil
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
        reader.reset()
    }

    /// Sends one request and reads its response. Reconnects first if the previous response closed the
    /// connection. After any error the connection is closed.
    public func send(_ request: HTTPClientRequest) throws(HTTPClientError) -> HTTPClientResponse {
        if descriptor < 0 { try connect() }
        deadline = clock.monotonicNanoseconds() &+ timeout.nanosecondsForDeadline
        tls?.retryDeadline = .now + timeout
        do {
            try writeAll(try Self.serialize(request, host: host, port: port))
            let response = try readResponse(isHead: request.method == "HEAD")
            // Bytes past the response's framing (a body longer than its Content-Length, a body on a 204)
            // would be read as the next response: such a connection is not reused.
            if !response.isKeepAlive || reader.unread > 0 { close() }
            return response
        } catch {
            close()
            throw error
        }
    }

    // MARK: Connecting

    /// Resolves `host`, then tries each address in turn (e.g. `localhost` → ::1, then 127.0.0.1) within
    /// `timeout` each; then runs the TLS handshake when configured.
    private func connect() throws(HTTPClientError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, results != nil else {
            throw .invalidAddress(host)
        }
        defer { freeaddrinfo(results) }
        let started = ContinuousClock.now
        var lastError = HTTPClientError.invalidAddress(host)
        var candidate = results
        var connected: Int32 = -1
        while let address = candidate {
            candidate = address.pointee.ai_next
            do {
                connected = try connect(to: address.pointee)
                break
            } catch {
                lastError = error
            }
        }
        guard connected >= 0 else { throw lastError }
        connectDuration = ContinuousClock.now - started
        descriptor = connected
        reader.reset()
        guard let tlsConfiguration else { return }
        let handshakeStarted = ContinuousClock.now
        do {
            tls = try TLSClientSession(
                fileDescriptor: connected, host: host, configuration: tlsConfiguration,
                deadline: handshakeStarted + timeout)
        } catch {
            _ = Glibc.close(connected)
            descriptor = -1
            throw error
        }
        handshakeDuration = ContinuousClock.now - handshakeStarted
    }

    private func connect(to address: addrinfo) throws(HTTPClientError) -> Int32 {
        let socketDescriptor = socket(address.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketDescriptor >= 0 else { throw .connectFailed(errno: errno) }
        // Non-blocking connect bounded by poll, then back to blocking with per-wait timeouts.
        let flags = fcntl(socketDescriptor, F_GETFL)
        _ = fcntl(socketDescriptor, F_SETFL, flags | O_NONBLOCK)
        if Glibc.connect(socketDescriptor, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                let code = errno
                _ = Glibc.close(socketDescriptor)
                throw .connectFailed(errno: code)
            }
            var pollDescriptor = pollfd(fd: socketDescriptor, events: Int16(POLLOUT), revents: 0)
            let connectDeadline = clock.monotonicNanoseconds() &+ timeout.nanosecondsForDeadline
            var ready: Int32
            // A signal handler may cut the wait short (EINTR): wait again for what is left of the timeout.
            repeat {
                let now = clock.monotonicNanoseconds()
                let left = connectDeadline > now ? connectDeadline - now : 0
                ready = poll(&pollDescriptor, 1, Int32(clamping: (left + 999_999) / 1_000_000))
            } while ready < 0 && errno == EINTR
            guard ready == 1 else {
                _ = Glibc.close(socketDescriptor)
                throw .timedOut
            }
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(socketDescriptor, SOL_SOCKET, SO_ERROR, &socketError, &length)
            guard socketError == 0 else {
                _ = Glibc.close(socketDescriptor)
                throw .connectFailed(errno: socketError)
            }
        }
        _ = fcntl(socketDescriptor, F_SETFL, flags)
        let nanoseconds = timeout.nanosecondsForDeadline
        var interval = timeval(
            tv_sec: Int(nanoseconds / 1_000_000_000), tv_usec: Int((nanoseconds % 1_000_000_000) / 1000))
        if interval.tv_sec == 0, interval.tv_usec == 0 { interval.tv_usec = 1 }
        _ = setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(socketDescriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        _ = setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        return socketDescriptor
    }

    // MARK: Writing

    static func serialize(_ request: HTTPClientRequest, host: String, port: Int) throws(HTTPClientError) -> [UInt8] {
        guard HTTPTokens.isToken(request.method.utf8), !request.target.isEmpty,
            request.target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw .invalidRequest }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + request.body.count)
        bytes.append(contentsOf: "\(request.method) \(request.target) HTTP/1.1\r\n".utf8)
        if !request.headers.contains("Host") {
            let authority = host.contains(":") ? "[\(host)]" : host
            bytes.append(contentsOf: "Host: \(authority):\(port)\r\n".utf8)
        }
        for field in request.headers
        where !HTTPTokens.equalsIgnoringCase(field.name.utf8, "Content-Length")
            && !HTTPTokens.equalsIgnoringCase(field.name.utf8, "Transfer-Encoding")
        {
            bytes.append(contentsOf: "\(field.name): \(field.value)\r\n".utf8)
        }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            bytes.append(contentsOf: "Content-Length: \(request.body.count)\r\n".utf8)
        }
        bytes.append(contentsOf: "\r\n".utf8)
        bytes.append(contentsOf: request.body)
        return bytes
    }

    private func writeAll(_ bytes: [UInt8]) throws(HTTPClientError) {
        if let tls {
            let result = bytes.withUnsafeBytes { raw in Result { () throws(HTTPClientError) in try tls.writeAll(raw) } }
            try result.get()
            return
        }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, shim_MSG_NOSIGNAL)
            }
            if sent > 0 {
                offset += sent
            } else if errno == EINTR, clock.monotonicNanoseconds() < deadline {
                continue  // a signal cut the call short; made again until the exchange's deadline
            } else if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK {
                throw .timedOut
            } else {
                throw .sendFailed(errno: errno)
            }
        }
    }

    // MARK: Reading (RFC 9112 §4, §6.3): HTTPResponseReader over the socket or the TLS session

    /// Appends what the server sent next to `buffer`; false at the end of the stream.
    private func receive(into buffer: inout [UInt8]) throws(HTTPClientError) -> Bool {
        if clock.monotonicNanoseconds() >= deadline { throw .timedOut }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        if let tls {
            let result = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(HTTPClientError) in try tls.read(into: raw) }
            }
            let count = try result.get()
            if count == 0 { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 { return false }
            // A signal cut the call short: made again until the exchange's deadline.
            if errno == EINTR, clock.monotonicNanoseconds() < deadline { continue }
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut }
            throw .receiveFailed(errno: errno)
        }
    }

    private func readResponse(isHead: Bool) throws(HTTPClientError) -> HTTPClientResponse {
        try reader.readResponse(isHead: isHead) { (buffer: inout [UInt8]) throws(HTTPClientError) -> Bool in
            try receive(into: &buffer)
        }
    }
}
