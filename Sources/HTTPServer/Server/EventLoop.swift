import CShims
import Glibc
import HTTP1
import LifecycleCore
import Synchronization

/// One epoll thread that accepts connections and serves them: reads, parses, hands complete requests to the
/// handler on Swift concurrency, and writes the responses the mailbox brings back. Everything here runs on
/// that one thread; nothing is shared except through `LoopMailbox` and the connection counter.
final class EventLoop {
    private static let listenerID: UInt64 = 0
    private static let mailboxID: UInt64 = 1
    private static let maxEventsPerWait: Int32 = 256
    /// Most back-to-back reads of transport-buffered input per readiness event (each at most one TLS record).
    private static let maxBufferedReadRounds = 64
    /// An outbound buffer that grew past this is released once flushed instead of kept for reuse, so one large
    /// response does not pin its memory for the life of a keep-alive connection.
    private static let retainedOutboundCapacity = 64 * 1024

    private let configuration: HTTPServerConfiguration
    private let handler: HTTPServer.Handler
    private let listenDescriptor: Int32
    private let mailbox: LoopMailbox
    private let activeConnections: ConnectionCounter
    private let epollDescriptor: Int32

    private var connections: [UInt64: HTTPConnection] = [:]
    private var nextConnectionID: UInt64 = 2
    private let clock: any LifecycleClock
    private var now: UInt64
    /// The earliest instant any deadline may expire; no scan happens before it.
    private var nextDeadlineScan: UInt64 = .max
    private var date = HTTPDate()
    private var shuttingDown = false
    private var shutdownDeadline: UInt64 = .max
    /// Set while the listener is out of epoll after running out of descriptors; see `pauseAccepting()`.
    private var acceptResumeAt: UInt64 = .max
    private let readBuffer: UnsafeMutableRawBufferPointer

    private let headerTimeout: UInt64
    private let bodyTimeout: UInt64
    private let idleTimeout: UInt64
    private let writeTimeout: UInt64
    private let lingerTimeout: UInt64

    init(
        configuration: HTTPServerConfiguration, handler: @escaping HTTPServer.Handler, listenDescriptor: Int32,
        mailbox: LoopMailbox, activeConnections: ConnectionCounter
    ) {
        self.configuration = configuration
        self.handler = handler
        self.listenDescriptor = listenDescriptor
        self.mailbox = mailbox
        self.activeConnections = activeConnections
        self.clock = configuration.clock
        self.now = configuration.clock.monotonicNanoseconds()
        self.epollDescriptor = shim_epoll_create()
        self.readBuffer = .allocate(byteCount: max(1, configuration.readChunkSize), alignment: 16)
        headerTimeout = configuration.headerReadTimeout.nanosecondsForDeadline
        bodyTimeout = configuration.bodyReadTimeout.nanosecondsForDeadline
        idleTimeout = configuration.idleTimeout.nanosecondsForDeadline
        writeTimeout = configuration.writeTimeout.nanosecondsForDeadline
        lingerTimeout = configuration.lingerTimeout.nanosecondsForDeadline
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Runs until shutdown completes. Closes the mailbox and epoll descriptors on the way out.
    func run() {
        _ = shim_epoll_ctl(epollDescriptor, shim_EPOLL_CTL_ADD, listenDescriptor, shim_EPOLLIN, Self.listenerID)
        _ = shim_epoll_ctl(epollDescriptor, shim_EPOLL_CTL_ADD, mailbox.readDescriptor, shim_EPOLLIN, Self.mailboxID)
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(Self.maxEventsPerWait))
        defer { events.deallocate() }

        while true {
            let count = shim_epoll_wait(epollDescriptor, events, Self.maxEventsPerWait, waitTimeoutMilliseconds())
            now = clock.monotonicNanoseconds()
            if count > 0 {
                for index in 0..<Int(count) {
                    let event = events + index
                    dispatch(id: shim_epoll_event_data(event), events: shim_epoll_event_events(event))
                }
            }
            if now >= nextDeadlineScan { expireDeadlines() }
            if now >= acceptResumeAt { resumeAccepting() }
            if shuttingDown {
                if connections.isEmpty { break }
                if now >= shutdownDeadline {
                    for connection in Array(connections.values) { close(connection) }
                    break
                }
            }
        }
        mailbox.close()
        _ = Glibc.close(epollDescriptor)
    }

    private func waitTimeoutMilliseconds() -> Int32 {
        let target = min(nextDeadlineScan, shutdownDeadline, acceptResumeAt)
        if target == .max { return -1 }
        let current = clock.monotonicNanoseconds()
        if target <= current { return 0 }
        let milliseconds = (target - current + 999_999) / 1_000_000
        return Int32(clamping: milliseconds)
    }

    private func dispatch(id: UInt64, events: UInt32) {
        switch id {
        case Self.listenerID:
            acceptConnections()
        case Self.mailboxID:
            drainMailbox()
        default:
            guard let connection = connections[id] else { return }
            if events & shim_EPOLLERR != 0 {
                close(connection)
                return
            }
            if events & (shim_EPOLLIN | shim_EPOLLHUP) != 0 {
                if connection.writeWaitsForReadable { flush(connection) }
                if wantsRead(connection) {
                    readOnce(connection)
                } else if events & shim_EPOLLHUP != 0 {
                    // Both directions are gone; nothing queued can be delivered.
                    close(connection)
                    return
                }
            }
            if events & shim_EPOLLOUT != 0 {
                if connection.readWaitsForWritable, wantsRead(connection) { readOnce(connection) }
                flush(connection)
            }
            readBufferedInput(connection)
            updateInterest(connection)
        }
    }

    // MARK: Accepting

    private func acceptConnections() {
        while !shuttingDown {
            let descriptor = shim_accept4_nonblocking(listenDescriptor, nil, nil)
            if descriptor < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: pauseAccepting()
                default: break  // EAGAIN: the backlog is empty.
                }
                return
            }
            let admitted =
                activeConnections.value.wrappingAdd(1, ordering: .relaxed).newValue <= configuration.maxConnections
            if !admitted {
                activeConnections.value.wrappingSubtract(1, ordering: .relaxed)
                refuseOverCapacity(descriptor)
                continue
            }
            var noDelay: Int32 = 1
            _ = setsockopt(
                descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            guard let transport = configuration.transport.makeTransport(fileDescriptor: descriptor) else {
                activeConnections.value.wrappingSubtract(1, ordering: .relaxed)
                _ = Glibc.close(descriptor)
                continue
            }
            let connection = HTTPConnection(
                id: nextConnectionID, transport: transport, limits: configuration.limits, phase: .readingHead)
            nextConnectionID += 1
            connections[connection.id] = connection
            // The first request's header deadline runs from accept: a client that connects and sends nothing
            // holds a slot no longer than one that trickles.
            setPhaseDeadline(connection, after: headerTimeout)
            connection.registeredInterest = shim_EPOLLIN
            _ = shim_epoll_ctl(epollDescriptor, shim_EPOLL_CTL_ADD, descriptor, shim_EPOLLIN, connection.id)
        }
    }

    /// Out of descriptors or memory: the pending connection stays in the backlog and the level-triggered
    /// listener would report it again at once, spinning the loop. Take the listener out of epoll and retry after
    /// `acceptRetryDelay`, serving existing connections meanwhile.
    private func pauseAccepting() {
        _ = shim_epoll_ctl(epollDescriptor, shim_EPOLL_CTL_DEL, listenDescriptor, 0, 0)
        acceptResumeAt = now &+ configuration.acceptRetryDelay.nanosecondsForDeadline
    }

    private func resumeAccepting() {
        acceptResumeAt = .max
        guard !shuttingDown else { return }
        _ = shim_epoll_ctl(epollDescriptor, shim_EPOLL_CTL_ADD, listenDescriptor, shim_EPOLLIN, Self.listenerID)
    }

    /// Over the connection cap: a best-effort 503 (RFC 9110 §15.6.4) and an immediate close.
    /// A TLS listener cannot answer before a handshake, so there the connection is only closed.
    private func refuseOverCapacity(_ descriptor: Int32) {
        guard configuration.transport.speaksPlainHTTP else {
            _ = Glibc.close(descriptor)
            return
        }
        var response: [UInt8] = []
        HTTPResponseEncoder.encode(
            .text("server busy\n", status: .serviceUnavailable), date: date.current(), omitBody: false,
            connection: .close, into: &response)
        _ = response.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, shim_MSG_NOSIGNAL) }
        _ = Glibc.close(descriptor)
    }

    // MARK: Reading and parsing

    private func wantsRead(_ connection: HTTPConnection) -> Bool {
        switch connection.phase {
        case .idle, .readingHead, .readingBody:
            return !connection.peerClosed && connection.pendingOutboundCount <= configuration.outboundHighWaterMark
        case .draining:
            return true
        case .awaitingResponse, .closingAfterFlush:
            return false
        }
    }

    /// Reads again while the transport holds input epoll cannot see (decrypted TLS records), bounded so one
    /// connection cannot monopolise the loop.
    private func readBufferedInput(_ connection: HTTPConnection) {
        var rounds = 0
        while rounds < Self.maxBufferedReadRounds, !connection.isClosed, wantsRead(connection),
            connection.transport.hasBufferedInput
        {
            rounds += 1
            readOnce(connection)
        }
    }

    private func readOnce(_ connection: HTTPConnection) {
        let result = connection.transport.read(into: readBuffer)
        connection.readWaitsForWritable = result == .wouldBlock(.write)
        switch result {
        case .transferred(let count):
            if case .draining = connection.phase { return }
            connection.parser.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            if case .idle = connection.phase {
                connection.phase = .readingHead
                setPhaseDeadline(connection, after: headerTimeout)
            }
            process(connection)
        case .wouldBlock:
            return
        case .endOfStream:
            if case .draining = connection.phase {
                close(connection)
                return
            }
            connection.peerClosed = true
            process(connection)
        case .failed:
            close(connection)
        }
    }

    /// Pulls parser events until the connection must wait: for bytes, for the handler, or for the flush before
    /// closing. Only one request is ever with the handler, which keeps pipelined responses in order.
    private func process(_ connection: HTTPConnection) {
        parsing: while !connection.isClosed {
            switch connection.phase {
            case .awaitingResponse, .closingAfterFlush, .draining:
                break parsing
            case .idle, .readingHead, .readingBody:
                break
            }
            if connection.pendingOutboundCount > configuration.outboundHighWaterMark { break }
            switch connection.parser.next() {
            case .needMoreData:
                if connection.peerClosed {
                    // The client stopped sending; answer nothing more and close after what is queued.
                    connection.phase = .closingAfterFlush
                    connection.phaseDeadline = nil
                }
                break parsing
            case .head(let head):
                connection.phase = .readingBody
                setPhaseDeadline(connection, after: bodyTimeout)
                // RFC 9110 §10.1.1: send 100 only when the body will be read and has not already arrived.
                if head.expectsContinue, head.framing != .none, connection.parser.bufferedByteCount == 0 {
                    queue(HTTPResponseEncoder.continueResponse, on: connection)
                }
            case .request(let request):
                connection.phase = .awaitingResponse(
                    omitBody: request.method == "HEAD", version: request.version,
                    wantsKeepAlive: request.wantsKeepAlive)
                connection.phaseDeadline = nil
                let mailbox = self.mailbox
                let handler = self.handler
                let id = connection.id
                Task {
                    let response = await handler(request)
                    mailbox.complete(LoopMailbox.Completion(connectionID: id, response: response))
                }
                break parsing
            case .failure(let error):
                respondAndClose(connection, status: error.status)
                break parsing
            }
        }
        flush(connection)
    }

    private func respondAndClose(_ connection: HTTPConnection, status: HTTPStatus) {
        var bytes: [UInt8] = []
        HTTPResponseEncoder.encode(
            .text("\(status.reasonPhrase.lowercased())\n", status: status), date: date.current(), omitBody: false,
            connection: .close, into: &bytes)
        queue(bytes, on: connection)
        connection.phase = .closingAfterFlush
        connection.phaseDeadline = nil
    }

    // MARK: Responses

    private func drainMailbox() {
        let (completions, shutdownRequested) = mailbox.take()
        for completion in completions {
            guard let connection = connections[completion.connectionID] else { continue }
            deliver(completion.response, to: connection)
        }
        if shutdownRequested, !shuttingDown { beginShutdown() }
    }

    private func deliver(_ response: HTTPResponse, to connection: HTTPConnection) {
        guard case .awaitingResponse(let omitBody, let version, let wantsKeepAlive) = connection.phase else { return }
        connection.requestsServed += 1
        let keepAlive =
            wantsKeepAlive && !shuttingDown && connection.requestsServed < configuration.maxRequestsPerConnection
        let directive: HTTPResponseEncoder.ConnectionDirective =
            keepAlive ? (version == .http1_0 ? .keepAlive : .implicit) : .close
        // A 1xx is never a final response (RFC 9110 §15.2); sending one would desynchronise the client.
        let response =
            response.status.code < 200 ? HTTPResponse.text("internal error\n", status: .internalServerError) : response
        armWriteDeadline(connection)
        HTTPResponseEncoder.encode(
            response, date: date.current(), omitBody: omitBody, connection: directive, into: &connection.outbound)
        if keepAlive {
            if connection.parser.isIdle {
                connection.phase = .idle
                setPhaseDeadline(connection, after: idleTimeout)
            } else {
                connection.phase = .readingHead
                setPhaseDeadline(connection, after: headerTimeout)
            }
            process(connection)
            readBufferedInput(connection)
        } else {
            connection.phase = .closingAfterFlush
            connection.phaseDeadline = nil
            flush(connection)
        }
        updateInterest(connection)
    }

    private func queue(_ bytes: [UInt8], on connection: HTTPConnection) {
        armWriteDeadline(connection)
        connection.outbound.append(contentsOf: bytes)
    }

    /// The write deadline runs from when the outbound buffer stops being empty until it is empty again.
    private func armWriteDeadline(_ connection: HTTPConnection) {
        guard connection.pendingOutboundCount == 0 else { return }
        let deadline = now &+ writeTimeout
        connection.writeDeadline = deadline
        nextDeadlineScan = min(nextDeadlineScan, deadline)
    }

    private func flush(_ connection: HTTPConnection) {
        guard !connection.isClosed else { return }
        while connection.pendingOutboundCount > 0 {
            let result = connection.outbound.withUnsafeBytes { bytes in
                connection.transport.write(UnsafeRawBufferPointer(rebasing: bytes[connection.outboundIndex...]))
            }
            connection.writeWaitsForReadable = result == .wouldBlock(.read)
            switch result {
            case .transferred(let count):
                connection.outboundIndex += count
            case .wouldBlock:
                return
            case .failed, .endOfStream:
                close(connection)
                return
            }
        }
        connection.outbound.removeAll(keepingCapacity: connection.outbound.capacity <= Self.retainedOutboundCapacity)
        connection.outboundIndex = 0
        connection.writeDeadline = nil
        if case .closingAfterFlush = connection.phase { beginDraining(connection) }
    }

    // MARK: Closing

    /// Half-close, then discard input until EOF or the linger deadline, so the client reads our last response
    /// instead of a reset caused by its unread request bytes (RFC 9112 §9.6).
    private func beginDraining(_ connection: HTTPConnection) {
        if connection.peerClosed {
            close(connection)
            return
        }
        connection.transport.shutdownWrite()
        connection.phase = .draining
        setPhaseDeadline(connection, after: lingerTimeout)
    }

    private func close(_ connection: HTTPConnection) {
        guard !connection.isClosed else { return }
        connection.isClosed = true
        _ = shim_epoll_ctl(epollDescriptor, shim_EPOLL_CTL_DEL, connection.transport.fileDescriptor, 0, 0)
        connection.transport.close()
        connections[connection.id] = nil
        activeConnections.value.wrappingSubtract(1, ordering: .relaxed)
    }

    private func updateInterest(_ connection: HTTPConnection) {
        guard !connection.isClosed else { return }
        // A transport blocked on the opposite direction (TLS) must not also wait on the direction it cannot use
        // yet: level-triggered epoll would report it ready forever.
        let wantsRead = wantsRead(connection)
        var interest: UInt32 = 0
        if (wantsRead && !connection.readWaitsForWritable) || connection.writeWaitsForReadable {
            interest |= shim_EPOLLIN
        }
        if (connection.pendingOutboundCount > 0 && !connection.writeWaitsForReadable)
            || (wantsRead && connection.readWaitsForWritable)
        {
            interest |= shim_EPOLLOUT
        }
        guard interest != connection.registeredInterest else { return }
        connection.registeredInterest = interest
        _ = shim_epoll_ctl(
            epollDescriptor, shim_EPOLL_CTL_MOD, connection.transport.fileDescriptor, interest, connection.id)
    }

    // MARK: Deadlines

    private func setPhaseDeadline(_ connection: HTTPConnection, after timeout: UInt64) {
        let deadline = now &+ timeout
        connection.phaseDeadline = deadline
        nextDeadlineScan = min(nextDeadlineScan, deadline)
    }

    private func expireDeadlines() {
        var earliest = UInt64.max
        for connection in Array(connections.values) {
            if let deadline = connection.writeDeadline, deadline <= now {
                close(connection)
                continue
            }
            if let deadline = connection.phaseDeadline, deadline <= now {
                connection.phaseDeadline = nil
                switch connection.phase {
                case .idle:
                    beginDraining(connection)
                case .readingHead where !connection.transport.isEstablished:
                    // The TLS handshake did not finish in time: there is no channel to answer 408 on.
                    close(connection)
                    continue
                case .readingHead, .readingBody:
                    // RFC 9110 §15.5.9: 408 tells the client the server gave up waiting.
                    respondAndClose(connection, status: .requestTimeout)
                    flush(connection)
                case .draining:
                    close(connection)
                case .awaitingResponse, .closingAfterFlush:
                    break
                }
                updateInterest(connection)
            }
            if !connection.isClosed {
                earliest = min(earliest, connection.phaseDeadline ?? .max, connection.writeDeadline ?? .max)
            }
        }
        nextDeadlineScan = earliest
    }

    // MARK: Shutdown

    /// Stop accepting; close idle connections gracefully; let in-flight requests finish (their responses say
    /// `Connection: close`).
    private func beginShutdown() {
        shuttingDown = true
        shutdownDeadline = now &+ configuration.shutdownGracePeriod.nanosecondsForDeadline
        _ = shim_epoll_ctl(epollDescriptor, shim_EPOLL_CTL_DEL, listenDescriptor, 0, 0)
        for connection in Array(connections.values) {
            switch connection.phase {
            case .idle, .readingHead:
                if connection.parser.isIdle {
                    if connection.pendingOutboundCount > 0 {
                        connection.phase = .closingAfterFlush
                        connection.phaseDeadline = nil
                    } else {
                        beginDraining(connection)
                    }
                }
            case .readingBody, .awaitingResponse, .closingAfterFlush, .draining:
                break
            }
            updateInterest(connection)
        }
    }
}
