import CShims
import Foundation
import Glibc
import HTTP1
import Synchronization

/// An HTTP/1.1 server on POSIX sockets with epoll event loops (no thread per connection).
///
/// Requests are parsed on the loop thread and handed to `handler` on Swift concurrency; the loop writes the
/// response back. Lifecycle: `init` → `start()` (binds, listens, starts the loops; `boundPort` is then
/// known) → `shutdown()` (stops accepting, finishes in-flight requests, closes idle connections, returns
/// when every loop has exited). For HTTPS set `configuration.transport = .tls(TLSServerContext(…))`.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    public let configuration: HTTPServerConfiguration
    private let handler: Handler
    private let activeConnections = ConnectionCounter()

    private enum Phase {
        case notStarted
        case running
        case stopping
        case stopped
    }

    private struct State {
        var phase = Phase.notStarted
        var listenDescriptor: Int32 = -1
        var boundPort: Int?
        var mailboxes: [LoopMailbox] = []
        var runningLoops = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init(configuration: HTTPServerConfiguration, handler: @escaping Handler) {
        self.configuration = configuration
        self.handler = handler
    }

    /// The port the listener is bound to (the ephemeral one when `configuration.port` is 0); nil before `start()`.
    public var boundPort: Int? { state.withLock { $0.boundPort } }

    /// Connections currently open, across all loops.
    public var openConnectionCount: Int { activeConnections.value.load(ordering: .relaxed) }

    /// Connections accepted and served since `start()`, across all loops (not those refused over
    /// `maxConnections`).
    public var acceptedConnectionCount: Int { activeConnections.admitted.load(ordering: .relaxed) }

    /// Binds, listens and starts the event-loop threads. Returns once the server accepts connections.
    public func start() throws(HTTPServerError) {
        let alreadyStarted = state.withLock { state in
            if state.phase != .notStarted { return true }
            state.phase = .running
            return false
        }
        if alreadyStarted { throw .alreadyStarted }

        let listener: (descriptor: Int32, port: Int)
        var mailboxes: [LoopMailbox] = []
        do {
            listener = try Self.listen(
                host: configuration.host, port: configuration.port, backlog: configuration.backlog)
            for _ in 0..<max(1, configuration.eventLoopCount) { mailboxes.append(try LoopMailbox()) }
        } catch {
            state.withLock { $0.phase = .stopped }
            throw error
        }
        state.withLock { state in
            state.listenDescriptor = listener.descriptor
            state.boundPort = listener.port
            state.mailboxes = mailboxes
            state.runningLoops = mailboxes.count
        }
        for (index, mailbox) in mailboxes.enumerated() {
            let thread = Thread { [configuration, handler, activeConnections] in
                _ = shim_set_thread_name("lc-http-loop-\(index)")
                let loop = EventLoop(
                    configuration: configuration, handler: handler, listenDescriptor: listener.descriptor,
                    mailbox: mailbox, activeConnections: activeConnections)
                loop.run()
                self.loopExited()
            }
            thread.start()
        }
    }

    /// Graceful shutdown: stop accepting, let in-flight requests finish and their responses be written (up to
    /// `shutdownGracePeriod`), half-close idle connections and drain them briefly, then return.
    public func shutdown() async {
        let mailboxes = state.withLock { state -> [LoopMailbox] in
            switch state.phase {
            case .notStarted:
                state.phase = .stopped
                return []
            case .running:
                state.phase = .stopping
                return state.mailboxes
            case .stopping, .stopped:
                return []
            }
        }
        for mailbox in mailboxes { mailbox.requestShutdown() }
        await waitUntilStopped()
    }

    /// Returns when the server has stopped (after `shutdown()` completes, or at once if it never started).
    public func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                switch state.phase {
                case .notStarted, .stopped:
                    return true
                case .running, .stopping:
                    state.waiters.append(continuation)
                    return false
                }
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func loopExited() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.runningLoops -= 1
            guard state.runningLoops == 0 else { return [] }
            _ = Glibc.close(state.listenDescriptor)
            state.listenDescriptor = -1
            state.phase = .stopped
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// socket → SO_REUSEADDR → bind → listen → getsockname, for a numeric IPv4 or IPv6 host.
    private static func listen(host: String, port: Int, backlog: Int32) throws(HTTPServerError) -> (
        descriptor: Int32, port: Int
    ) {
        guard (0...65535).contains(port) else { throw .invalidAddress("\(host):\(port)") }
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw .invalidAddress(host) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw .invalidAddress(host) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
        }
        let descriptor = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socketFailed(operation: "socket", errno: errno) }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            _ = Glibc.close(descriptor)
            throw .socketFailed(operation: "bind", errno: code)
        }
        guard Glibc.listen(descriptor, backlog) == 0 else {
            let code = errno
            _ = Glibc.close(descriptor)
            throw .socketFailed(operation: "listen", errno: code)
        }
        var boundStorage = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &boundStorage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &boundLength) }
        }
        let boundPort: UInt16 = withUnsafeBytes(of: &boundStorage) { raw in
            family == AF_INET6
                ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port
        }
        return (descriptor, Int(UInt16(bigEndian: boundPort)))
    }
}
