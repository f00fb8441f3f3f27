import LifecycleCore

/// One server connection's HTTP/1.1 life as a value: what it has read, what it owes, which deadline runs, and
/// what the event loop must do next. No sockets and no system calls: the loop reports events (bytes read,
/// bytes written, the peer closed, a response produced, a deadline reached, shutdown) and performs the
/// returned ``Action``; time comes from the injected clock, so every rule below is testable without a socket.
///
/// The rules it keeps (RFC 9112, RFC 9110):
/// - one request with the handler at a time, so pipelined responses leave in order (RFC 9112 §9.3.2);
/// - `100 Continue` only when the body will be read and has not already arrived (RFC 9110 §10.1.1);
/// - HEAD responses without a body (RFC 9110 §9.3.2); a 1xx from the handler is never sent as final
///   (RFC 9110 §15.2);
/// - keep-alive per version and `Connection` options, capped by `maxRequestsPerConnection`, never while
///   shutting down (RFC 9112 §9.3);
/// - after a framing error: the error response with `Connection: close`, then close, never resync
///   (RFC 9112 §11.2);
/// - deadlines as totals per phase (RFC 9112 §9.5): header (from accept or the first byte), body, idle, write
///   (from when output stops being empty until it is empty again), linger; 408 on a header or body deadline
///   (RFC 9110 §15.5.9) unless the transport's handshake has not finished;
/// - staged close: half-close, then discard input until EOF or the linger deadline (RFC 9112 §9.6).
package struct HTTPConnectionStateMachine {
    /// What the event loop does after an event. Whenever ``hasPendingOutput`` is true it also writes
    /// ``pendingOutput`` and reports ``bytesWritten(_:)``; ``wantsRead`` says whether to read.
    package enum Action {
        /// Nothing beyond the reads and writes ``wantsRead`` and ``hasPendingOutput`` ask for.
        case wait
        /// Output is queued: write it (a response, `100 Continue`, or an error response).
        case write
        /// Hand this request to the handler; report its response with ``responseProduced(_:)``.
        case deliverRequest(HTTPRequest)
        /// Everything owed is written: shut down the write side and keep reading to discard (RFC 9112 §9.6).
        case halfClose
        /// Release the connection now.
        case close
    }

    /// Where the connection is in its request/response cycle (RFC 9112 §9).
    package enum Phase: Equatable {
        /// Between requests with nothing buffered; the idle deadline runs.
        case idle
        /// Header bytes are arriving; the total header deadline runs.
        case readingHead
        /// Body bytes are arriving; the total body deadline runs.
        case readingBody
        /// The handler is running; no further request is parsed until its response is queued.
        case awaitingResponse(omitBody: Bool, version: HTTPVersion, wantsKeepAlive: Bool)
        /// The final response is queued; close once it is written.
        case closingAfterFlush
        /// Write side shut down; discard input until EOF or the linger deadline.
        case draining
        /// Released.
        case closed
    }

    /// The limits and deadlines a connection is held to; the server derives them from its configuration.
    package struct Configuration: Sendable {
        package var limits = HTTPServerLimits()
        package var headerReadTimeout: Duration = .seconds(10)
        package var bodyReadTimeout: Duration = .seconds(30)
        package var idleTimeout: Duration = .seconds(60)
        package var writeTimeout: Duration = .seconds(30)
        package var lingerTimeout: Duration = .seconds(2)
        package var maxRequestsPerConnection = 1000
        package var outboundHighWaterMark = 1024 * 1024

        package init() {}
    }

    /// An output buffer that grew past this is released once written instead of kept for reuse, so one large
    /// response does not pin its memory for the life of a keep-alive connection.
    private static let retainedOutputCapacity = 64 * 1024

    private let configuration: Configuration
    private let clock: any LifecycleClock
    private let headerTimeout: UInt64
    private let bodyTimeout: UInt64
    private let idleTimeout: UInt64
    private let writeTimeout: UInt64
    private let lingerTimeout: UInt64

    private var parser: HTTPRequestParser
    package private(set) var phase: Phase
    private var output: [UInt8] = []
    private var outputIndex = 0
    package private(set) var requestsServed = 0
    /// The running phase deadline (header, body, idle, linger), monotonic nanoseconds.
    package private(set) var phaseDeadline: UInt64?
    /// The running write deadline, monotonic nanoseconds.
    package private(set) var writeDeadline: UInt64?
    package private(set) var peerClosed = false
    private var shuttingDown = false
    private var date = HTTPDate()
    /// Status codes of the final responses queued since the loop last took them: the handler's and the
    /// connection's own refusals (400, 408, 413, 414, 431, 501…), which no handler sees, so a server can
    /// count every answer it gives.
    private var answered: [Int] = []

    /// A connection just accepted: the first request's header deadline runs from now, so a client that
    /// connects and sends nothing holds a slot no longer than one that trickles.
    package init(configuration: Configuration, clock: any LifecycleClock) {
        self.configuration = configuration
        self.clock = clock
        headerTimeout = configuration.headerReadTimeout.nanosecondsForDeadline
        bodyTimeout = configuration.bodyReadTimeout.nanosecondsForDeadline
        idleTimeout = configuration.idleTimeout.nanosecondsForDeadline
        writeTimeout = configuration.writeTimeout.nanosecondsForDeadline
        lingerTimeout = configuration.lingerTimeout.nanosecondsForDeadline
        parser = HTTPRequestParser(limits: configuration.limits)
        phase = .readingHead
        phaseDeadline = clock.monotonicNanoseconds() &+ headerTimeout
    }

    // MARK: What the loop asks

    /// Whether the loop should read: not while the handler runs or output waits to close, not past the output
    /// high-water mark (back-pressure on a pipelining client that does not read), always while draining.
    package var wantsRead: Bool {
        switch phase {
        case .idle, .readingHead, .readingBody:
            return !peerClosed && pendingOutputCount <= configuration.outboundHighWaterMark
        case .draining:
            return true
        case .awaitingResponse, .closingAfterFlush, .closed:
            return false
        }
    }

    package var hasPendingOutput: Bool { pendingOutputCount > 0 }

    package var pendingOutputCount: Int { output.count - outputIndex }

    /// The bytes still to write, for the loop to hand to the transport.
    package func withPendingOutput<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        output.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[outputIndex...])) }
    }

    /// The earliest running deadline, when the loop must call ``deadlineReached(transportEstablished:)``.
    package var nextDeadline: UInt64? {
        switch (phaseDeadline, writeDeadline) {
        case (nil, nil): nil
        case (let phase?, nil): phase
        case (nil, let write?): write
        case (let phase?, let write?): min(phase, write)
        }
    }

    /// True between requests with nothing buffered (shutdown closes such connections at once).
    package var isBetweenRequests: Bool { parser.isIdle }

    package var isClosed: Bool { phase == .closed }

    /// The status codes of the final responses queued since the last call (`100 Continue` is not one), in
    /// order; the loop reports them to the server's response observer.
    package mutating func takeAnsweredStatuses() -> [Int] {
        guard !answered.isEmpty else { return [] }
        defer { answered.removeAll(keepingCapacity: true) }
        return answered
    }

    // MARK: Events

    /// Bytes arrived from the peer.
    package mutating func bytesRead(_ bytes: UnsafeRawBufferPointer) -> Action {
        switch phase {
        case .draining, .closed:
            return .wait
        case .idle:
            parser.append(bytes)
            phase = .readingHead
            setPhaseDeadline(after: headerTimeout)
        case .readingHead, .readingBody, .awaitingResponse, .closingAfterFlush:
            parser.append(bytes)
        }
        return process()
    }

    /// The peer closed its sending side.
    package mutating func peerClosedInput() -> Action {
        switch phase {
        case .draining:
            return close()
        case .closed:
            return .wait
        case .idle, .readingHead, .readingBody, .awaitingResponse, .closingAfterFlush:
            peerClosed = true
            return process()
        }
    }

    /// The transport failed (reset, broken pipe): nothing more can be said on this connection.
    package mutating func transportFailed() -> Action {
        close()
    }

    /// The transport accepted `count` bytes of ``pendingOutput``.
    package mutating func bytesWritten(_ count: Int) -> Action {
        guard phase != .closed else { return .wait }
        outputIndex = min(output.count, outputIndex + max(0, count))
        guard pendingOutputCount == 0 else { return .write }
        output.removeAll(keepingCapacity: output.capacity <= Self.retainedOutputCapacity)
        outputIndex = 0
        writeDeadline = nil
        if phase == .closingAfterFlush { return beginDraining() }
        // Written below the high-water mark again: parse what a pipelining client already sent.
        return process()
    }

    /// The handler answered the request last delivered.
    package mutating func responseProduced(_ response: HTTPResponse) -> Action {
        guard case .awaitingResponse(let omitBody, let version, let wantsKeepAlive) = phase else { return .wait }
        requestsServed += 1
        let keepAlive = wantsKeepAlive && !shuttingDown && requestsServed < configuration.maxRequestsPerConnection
        let directive: HTTPResponseEncoder.ConnectionDirective =
            keepAlive ? (version == .http1_0 ? .keepAlive : .implicit) : .close
        let response =
            response.status.code < 200 ? HTTPResponse.text("internal error\n", status: .internalServerError) : response
        armWriteDeadline()
        HTTPResponseEncoder.encode(
            response, date: currentDate(), omitBody: omitBody, connection: directive, into: &output)
        answered.append(response.status.code)
        guard keepAlive else {
            phase = .closingAfterFlush
            phaseDeadline = nil
            return .write
        }
        if parser.isIdle {
            phase = .idle
            setPhaseDeadline(after: idleTimeout)
        } else {
            phase = .readingHead
            setPhaseDeadline(after: headerTimeout)
        }
        return process()
    }

    /// The clock passed ``nextDeadline``. `transportEstablished` is false while a TLS handshake is still in
    /// progress: there is then no channel to answer 408 on, so the connection is only closed.
    package mutating func deadlineReached(transportEstablished: Bool) -> Action {
        let now = clock.monotonicNanoseconds()
        if let deadline = writeDeadline, deadline <= now { return close() }
        guard let deadline = phaseDeadline, deadline <= now else { return .wait }
        phaseDeadline = nil
        switch phase {
        case .idle:
            return beginDraining()
        case .readingHead where !transportEstablished:
            return close()
        case .readingHead, .readingBody:
            // RFC 9110 §15.5.9: 408 tells the client the server gave up waiting.
            return respondAndClose(status: .requestTimeout)
        case .draining:
            return close()
        case .awaitingResponse, .closingAfterFlush, .closed:
            return .wait
        }
    }

    /// The server is shutting down: no further keep-alive; a connection between requests closes gracefully,
    /// one mid-request finishes it first (its response says `Connection: close`).
    package mutating func shutdownBegan() -> Action {
        shuttingDown = true
        switch phase {
        case .idle, .readingHead:
            guard parser.isIdle else { return .wait }
            if hasPendingOutput {
                phase = .closingAfterFlush
                phaseDeadline = nil
                return .write
            }
            return beginDraining()
        case .readingBody, .awaitingResponse, .closingAfterFlush, .draining, .closed:
            return .wait
        }
    }

    // MARK: Transitions

    /// Pulls parser events until the connection must wait: for bytes, for the handler, or for the output to be
    /// written before closing.
    private mutating func process() -> Action {
        while true {
            switch phase {
            case .awaitingResponse, .draining, .closed:
                return hasPendingOutput ? .write : .wait
            case .closingAfterFlush:
                return hasPendingOutput ? .write : beginDraining()
            case .idle, .readingHead, .readingBody:
                break
            }
            if pendingOutputCount > configuration.outboundHighWaterMark { return .write }
            switch parser.next() {
            case .needMoreData:
                if peerClosed {
                    // The client stopped sending; answer nothing more and close after what is queued.
                    phase = .closingAfterFlush
                    phaseDeadline = nil
                    continue
                }
                return hasPendingOutput ? .write : .wait
            case .head(let head):
                phase = .readingBody
                setPhaseDeadline(after: bodyTimeout)
                if head.expectsContinue, head.framing != .none, parser.bufferedByteCount == 0 {
                    queue(HTTPResponseEncoder.continueResponse)
                }
            case .request(let request):
                phase = .awaitingResponse(
                    omitBody: request.method == "HEAD", version: request.version,
                    wantsKeepAlive: request.wantsKeepAlive)
                phaseDeadline = nil
                return .deliverRequest(request)
            case .failure(let error):
                return respondAndClose(status: error.status)
            }
        }
    }

    private mutating func respondAndClose(status: HTTPStatus) -> Action {
        var bytes: [UInt8] = []
        HTTPResponseEncoder.encode(
            .text("\(status.reasonPhrase.lowercased())\n", status: status), date: currentDate(), omitBody: false,
            connection: .close, into: &bytes)
        queue(bytes)
        answered.append(status.code)
        phase = .closingAfterFlush
        phaseDeadline = nil
        return .write
    }

    /// The `Date` field value an origin server with a clock must send (RFC 9110 §6.6.1), from the wall clock.
    private mutating func currentDate() -> [UInt8] {
        date.current(secondsSinceEpoch: clock.now().millisecondsSinceEpoch / 1000)
    }

    private mutating func queue(_ bytes: [UInt8]) {
        armWriteDeadline()
        output.append(contentsOf: bytes)
    }

    /// The write deadline runs from when the output stops being empty until it is empty again.
    private mutating func armWriteDeadline() {
        guard pendingOutputCount == 0 else { return }
        writeDeadline = clock.monotonicNanoseconds() &+ writeTimeout
    }

    private mutating func setPhaseDeadline(after timeout: UInt64) {
        phaseDeadline = clock.monotonicNanoseconds() &+ timeout
    }

    /// Half-close, then discard input until EOF or the linger deadline, so the client reads the last response
    /// instead of a reset caused by its unread request bytes (RFC 9112 §9.6).
    private mutating func beginDraining() -> Action {
        if peerClosed { return close() }
        phase = .draining
        setPhaseDeadline(after: lingerTimeout)
        return .halfClose
    }

    private mutating func close() -> Action {
        phase = .closed
        phaseDeadline = nil
        writeDeadline = nil
        output = []
        outputIndex = 0
        return .close
    }
}
