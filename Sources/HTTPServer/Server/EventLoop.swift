import CShims
import Glibc
import HTTP1
import LifecycleCore
import Synchronization

/// One epoll thread that accepts connections and serves them. It is a driver: it performs I/O (accept, read,
/// write, epoll interest, close) and reports what happened to each connection's `HTTPConnectionStateMachine`,
/// which decides what happens next (framing, keep-alive, deadlines, staged close). Everything here runs on that
/// one thread; nothing is shared except through `LoopMailbox` and the connection counter.
final class EventLoop {
    private static let listenerID: UInt64 = 0
    private static let mailboxID: UInt64 = 1
    private static let maxEventsPerWait: Int32 = 256
    /// Most back-to-back reads of transport-buffered input per readiness event (each at most one TLS record).
    private static let maxBufferedReadRounds = 64

    private let configuration: HTTPServerConfiguration
    private let connectionConfiguration: HTTPConnectionStateMachine.Configuration
    private let clock: any LifecycleClock
    private let handler: HTTPServer.Handler
    private let listenDescriptor: Int32
    private let mailbox: LoopMailbox
    private let activeConnections: ConnectionCounter
    private let epollDescriptor: Int32

    private var connections: [UInt64: HTTPConnection] = [:]
    private var nextConnectionID: UInt64 = 2
    private var now: UInt64
    /// The earliest instant any deadline may expire; no scan happens before it.
    private var nextDeadlineScan: UInt64 = .max
    private var date = HTTPDate()
    private var shuttingDown = false
    private var shutdownDeadline: UInt64 = .max
    /// Set while the listener is out of epoll after running out of descriptors; see `pauseAccepting()`.
    private var acceptResumeAt: UInt64 = .max
    private let readBuffer: UnsafeMutableRawBufferPointer

    init(
        configuration: HTTPServerConfiguration, handler: @escaping HTTPServer.Handler, listenDescriptor: Int32,
        mailbox: LoopMailbox, activeConnections: ConnectionCounter
    ) {
        self.configuration = configuration
        self.connectionConfiguration = configuration.connectionConfiguration
        self.clock = configuration.clock
        self.handler = handler
        self.listenDescriptor = listenDescriptor
        self.mailbox = mailbox
        self.activeConnections = activeConnections
        self.epollDescriptor = shim_epoll_create()
        self.readBuffer = .allocate(byteCount: max(1, configuration.readChunkSize), alignment: 16)
        self.now = configuration.clock.monotonicNanoseconds()
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
                perform(connection.machine.transportFailed(), on: connection)
                return
            }
            if events & (shim_EPOLLIN | shim_EPOLLHUP) != 0 {
                if connection.writeWaitsForReadable { flush(connection) }
                if connection.machine.wantsRead {
                    readOnce(connection)
                } else if events & shim_EPOLLHUP != 0 {
                    // Both directions are gone; nothing queued can be delivered.
                    perform(connection.machine.transportFailed(), on: connection)
                    return
                }
            }
            if events & shim_EPOLLOUT != 0 {
                if connection.readWaitsForWritable, connection.machine.wantsRead { readOnce(connection) }
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
                id: nextConnectionID, transport: transport,
                machine: HTTPConnectionStateMachine(configuration: connectionConfiguration, clock: clock))
            nextConnectionID += 1
            activeConnections.admitted.wrappingAdd(1, ordering: .relaxed)
            connections[connection.id] = connection
            noteDeadline(of: connection)
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
            .text("server busy\n", status: .serviceUnavailable),
            date: date.current(secondsSinceEpoch: clock.now().secondsSinceEpoch), omitBody: false,
            connection: .close, into: &response)
        _ = response.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, shim_MSG_NOSIGNAL) }
        _ = Glibc.close(descriptor)
        configuration.responseObserver?(HTTPStatus.serviceUnavailable.code)
    }

    // MARK: Reading

    /// Reads again while the transport holds input epoll cannot see (decrypted TLS records), bounded so one
    /// connection cannot monopolise the loop.
    private func readBufferedInput(_ connection: HTTPConnection) {
        var rounds = 0
        while rounds < Self.maxBufferedReadRounds, !connection.machine.isClosed, connection.machine.wantsRead,
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
            let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
            perform(connection.machine.bytesRead(bytes), on: connection)
        case .wouldBlock:
            return
        case .endOfStream:
            perform(connection.machine.peerClosedInput(), on: connection)
        case .failed:
            perform(connection.machine.transportFailed(), on: connection)
        }
    }

    // MARK: Performing the machine's actions

    /// Carries out what the connection's state machine asked for, then writes whatever output it holds.
    private func perform(_ action: HTTPConnectionStateMachine.Action, on connection: HTTPConnection) {
        reportAnswers(of: connection)
        switch action {
        case .wait, .write:
            break
        case .deliverRequest(let request):
            let mailbox = self.mailbox
            let handler = self.handler
            let id = connection.id
            Task {
                let response = await handler(request)
                mailbox.complete(LoopMailbox.Completion(connectionID: id, response: response))
            }
        case .halfClose:
            connection.transport.shutdownWrite()
        case .close:
            close(connection)
            return
        }
        noteDeadline(of: connection)
        flush(connection)
    }

    /// Hands the status codes of the responses the connection queued to the server's response observer.
    private func reportAnswers(of connection: HTTPConnection) {
        let statuses = connection.machine.takeAnsweredStatuses()
        guard let observer = configuration.responseObserver else { return }
        for status in statuses { observer(status) }
    }

    private func flush(_ connection: HTTPConnection) {
        while !connection.machine.isClosed, connection.machine.hasPendingOutput {
            let result = connection.machine.withPendingOutput { connection.transport.write($0) }
            connection.writeWaitsForReadable = result == .wouldBlock(.read)
            switch result {
            case .transferred(let count):
                let action = connection.machine.bytesWritten(count)
                noteDeadline(of: connection)
                if case .write = action {
                    reportAnswers(of: connection)
                    continue
                }
                perform(action, on: connection)
                return
            case .wouldBlock:
                return
            case .failed, .endOfStream:
                perform(connection.machine.transportFailed(), on: connection)
                return
            }
        }
    }

    // MARK: Responses

    private func drainMailbox() {
        let (completions, shutdownRequested) = mailbox.take()
        for completion in completions {
            guard let connection = connections[completion.connectionID] else { continue }
            perform(connection.machine.responseProduced(completion.response), on: connection)
            readBufferedInput(connection)
            updateInterest(connection)
        }
        if shutdownRequested, !shuttingDown { beginShutdown() }
    }

    // MARK: Closing

    private func close(_ connection: HTTPConnection) {
        guard !connection.isReleased else { return }
        connection.isReleased = true
        _ = shim_epoll_ctl(epollDescriptor, shim_EPOLL_CTL_DEL, connection.transport.fileDescriptor, 0, 0)
        connection.transport.close()
        connections[connection.id] = nil
        activeConnections.value.wrappingSubtract(1, ordering: .relaxed)
    }

    private func updateInterest(_ connection: HTTPConnection) {
        guard !connection.isReleased else { return }
        // A transport blocked on the opposite direction (TLS) must not also wait on the direction it cannot use
        // yet: level-triggered epoll would report it ready forever.
        let wantsRead = connection.machine.wantsRead
        var interest: UInt32 = 0
        if (wantsRead && !connection.readWaitsForWritable) || connection.writeWaitsForReadable {
            interest |= shim_EPOLLIN
        }
        if (connection.machine.hasPendingOutput && !connection.writeWaitsForReadable)
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

    /// Brings the next scan forward to the connection's earliest running deadline.
    private func noteDeadline(of connection: HTTPConnection) {
        if let deadline = connection.machine.nextDeadline { nextDeadlineScan = min(nextDeadlineScan, deadline) }
    }

    private func expireDeadlines() {
        var earliest = UInt64.max
        for connection in Array(connections.values) {
            if let deadline = connection.machine.nextDeadline, deadline <= now {
                let action = connection.machine.deadlineReached(
                    transportEstablished: connection.transport.isEstablished)
                perform(action, on: connection)
                updateInterest(connection)
            }
            if !connection.isReleased, let deadline = connection.machine.nextDeadline {
                earliest = min(earliest, deadline)
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
            perform(connection.machine.shutdownBegan(), on: connection)
            updateInterest(connection)
        }
    }
}
