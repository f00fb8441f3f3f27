import HTTP1
import LifecycleCore
import Testing

/// The connection's rules without a socket: events in, actions out, time from a `ManualClock` that the test
/// steps, so every deadline is checked to the nanosecond instead of by sleeping.
@Suite("HTTP connection state machine")
struct HTTPConnectionStateMachineTests {
    typealias Machine = HTTPConnectionStateMachine

    let clock = ManualClock(Instant(secondsSinceEpoch: 784_111_777))

    func makeMachine(_ configure: (inout Machine.Configuration) -> Void = { _ in }) -> Machine {
        var configuration = Machine.Configuration()
        configuration.headerReadTimeout = .seconds(10)
        configuration.bodyReadTimeout = .seconds(30)
        configuration.idleTimeout = .seconds(60)
        configuration.writeTimeout = .seconds(30)
        configuration.lingerTimeout = .seconds(2)
        configure(&configuration)
        return Machine(configuration: configuration, clock: clock)
    }

    @Test("a complete request is delivered, and its response is queued with Content-Length and Date")
    func deliversRequestAndQueuesResponse() {
        var machine = makeMachine()
        #expect(machine.read("GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n") == "deliver GET /a")
        #expect(!machine.wantsRead, "nothing more is read while the handler runs")
        #expect(machine.responseProduced(.text("hello")) == "write")
        let output = machine.takeOutput()
        #expect(output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(output.contains("Content-Length: 5\r\n"))
        #expect(output.contains("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"), "Date comes from the injected clock")
        #expect(!output.contains("Connection:"), "HTTP/1.1 keep-alive is implicit")
        #expect(output.hasSuffix("\r\n\r\nhello"))
        #expect(machine.phase == .idle)
        #expect(machine.wantsRead)
    }

    @Test("pipelined requests are delivered one at a time, so their responses leave in order")
    func pipeliningKeepsOrder() {
        var machine = makeMachine()
        let action = machine.read(
            "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\nGET /3 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(action == "deliver GET /1")
        #expect(machine.responseProduced(.text("one")) == "deliver GET /2")
        #expect(machine.responseProduced(.text("two")) == "deliver GET /3")
        #expect(machine.responseProduced(.text("three")) == "write")
        let output = machine.takeOutput()
        let one = output.range(of: "one")!.lowerBound
        let two = output.range(of: "two")!.lowerBound
        let three = output.range(of: "three")!.lowerBound
        #expect(one < two && two < three)
    }

    @Test("a HEAD response keeps Content-Length and drops the body")
    func headHasNoBody() {
        var machine = makeMachine()
        #expect(machine.read("HEAD / HTTP/1.1\r\nHost: h\r\n\r\n") == "deliver HEAD /")
        _ = machine.responseProduced(.text("hello"))
        let output = machine.takeOutput()
        #expect(output.contains("Content-Length: 5\r\n"))
        #expect(output.hasSuffix("\r\n\r\n"))
    }

    @Test("100 Continue is sent only when a body is expected and has not arrived yet")
    func continueOnlyWhenBodyWillBeRead() {
        var waiting = makeMachine()
        let head = "POST /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
        #expect(waiting.read(head) == "write")
        #expect(waiting.takeOutput() == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(waiting.read("abc") == "deliver POST /u")

        var arrived = makeMachine()
        #expect(arrived.read(head + "abc") == "deliver POST /u")
        #expect(!arrived.hasPendingOutput)

        var bodiless = makeMachine()
        #expect(bodiless.read("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n") == "deliver GET /")
        #expect(!bodiless.hasPendingOutput)
    }

    @Test("a 1xx from the handler is never sent as the final response")
    func informationalBecomesInternalError() throws {
        var machine = makeMachine()
        _ = machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = machine.responseProduced(HTTPResponse(status: try HTTPStatus(code: 101)))
        #expect(machine.takeOutput().hasPrefix("HTTP/1.1 500 "))
    }

    @Test(
        "framing errors answer with Connection: close, then half-close and stop parsing",
        arguments: [
            ("GET / HTTP/1.1\r\n\r\n", "400"),
            ("GET / HTTP/1.1\r\nHost: user@h\r\n\r\n", "400"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;bad[=x\r\nab\r\n0\r\n\r\n", "400"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2000000\r\n\r\n", "413"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "400"),
        ])
    func framingErrorCloses(request: String, status: String) {
        var machine = makeMachine()
        #expect(machine.read(request + "GET /next HTTP/1.1\r\nHost: h\r\n\r\n") == "write")
        #expect(machine.phase == .closingAfterFlush)
        #expect(!machine.wantsRead)
        let output = machine.pendingOutputText
        #expect(output.hasPrefix("HTTP/1.1 \(status) "))
        #expect(output.contains("Connection: close\r\n"))
        #expect(machine.writeAll() == "halfClose", "written, the server shuts its side and drains")
        #expect(machine.phase == .draining)
        #expect(machine.read("GET /more HTTP/1.1\r\nHost: h\r\n\r\n") == "wait", "input while draining is dropped")
        #expect(machine.peerClosedInput() == "close")
    }

    @Test(
        "every final response is reported once for counting: the handler's, a 100 Continue never, the 413 it gives itself"
    )
    func answeredStatusesReported() {
        var machine = makeMachine { $0.limits.maxBodyLength = 10 }
        #expect(machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n") == "deliver GET /")
        _ = machine.responseProduced(.text("nope", status: .methodNotAllowed))
        #expect(machine.takeAnsweredStatuses() == [405])
        #expect(machine.takeAnsweredStatuses() == [], "taken once")
        _ = machine.takeOutput()
        let head = "POST /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
        #expect(machine.read(head) == "write")
        #expect(machine.takeAnsweredStatuses() == [], "100 Continue is not a final response")
        #expect(machine.read("abc") == "deliver POST /u")
        _ = machine.responseProduced(.text("ok"))
        #expect(machine.read("POST /u HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n") == "write")
        #expect(machine.takeAnsweredStatuses() == [200, 413])
    }

    @Test("keep-alive follows the version: HTTP/1.0 needs keep-alive and gets it confirmed; close closes")
    func keepAlivePerVersion() {
        var plain10 = makeMachine()
        _ = plain10.read("GET / HTTP/1.0\r\n\r\n")
        _ = plain10.responseProduced(.text("x"))
        #expect(plain10.pendingOutputText.contains("Connection: close\r\n"))
        #expect(plain10.phase == .closingAfterFlush)

        var kept10 = makeMachine()
        _ = kept10.read("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        _ = kept10.responseProduced(.text("x"))
        #expect(kept10.takeOutput().contains("Connection: keep-alive\r\n"))
        #expect(kept10.phase == .idle)

        var closed11 = makeMachine()
        _ = closed11.read("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        _ = closed11.responseProduced(.text("x"))
        #expect(closed11.pendingOutputText.contains("Connection: close\r\n"))
        #expect(closed11.writeAll() == "halfClose")
    }

    @Test("the last request allowed on a connection is answered with Connection: close")
    func requestCapClosesConnection() {
        var machine = makeMachine { $0.maxRequestsPerConnection = 2 }
        _ = machine.read("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(machine.responseProduced(.text("1")) == "deliver GET /2")
        _ = machine.responseProduced(.text("2"))
        let output = machine.pendingOutputText
        #expect(output.components(separatedBy: "Connection: close").count == 2, "only the second says close")
        #expect(machine.phase == .closingAfterFlush)
    }

    @Test("a peer that closes after its request still gets the response, then the connection closes")
    func peerCloseAfterRequest() {
        var machine = makeMachine()
        _ = machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(machine.peerClosedInput() == "wait", "the handler is still running")
        _ = machine.responseProduced(.text("x"))
        #expect(machine.writeAll() == "close", "no half-close: the peer already closed")
    }

    @Test("a peer that closes mid-request gets nothing and the connection closes")
    func peerCloseMidRequest() {
        var machine = makeMachine()
        #expect(machine.read("GET / HTTP/1.1\r\nHo") == "wait")
        #expect(machine.peerClosedInput() == "close")
        #expect(machine.isClosed)
    }

    // MARK: Deadlines, driven by the test clock

    @Test("the first header deadline runs from accept; at it the server answers 408 and closes")
    func headerDeadlineFromAccept() {
        var machine = makeMachine()
        #expect(machine.nextDeadline == clock.monotonicNanoseconds() + 10_000_000_000)
        clock.advance(by: .seconds(10) - .nanoseconds(1))
        #expect(machine.deadlineReached(transportEstablished: true) == "wait")
        #expect(!machine.hasPendingOutput)
        clock.advance(by: .nanoseconds(1))
        #expect(machine.deadlineReached(transportEstablished: true) == "write")
        let output = machine.pendingOutputText
        #expect(output.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(output.contains("Connection: close\r\n"))
        #expect(machine.writeAll() == "halfClose")
        #expect(machine.nextDeadline == clock.monotonicNanoseconds() + 2_000_000_000, "the linger deadline")
        clock.advance(by: .seconds(2))
        #expect(machine.deadlineReached(transportEstablished: true) == "close")
    }

    @Test("the header deadline is a total: a slow-loris client trickling bytes is cut off at it")
    func headerDeadlineIsTotal() {
        var machine = makeMachine { $0.headerReadTimeout = .milliseconds(1500) }
        let deadline = machine.nextDeadline
        for byte in "GET / HTTP/1.1\r\nX-Slow: ".utf8 {
            clock.advance(by: .milliseconds(50))
            if clock.monotonicNanoseconds() >= deadline! { break }
            #expect(machine.read([byte]) == "wait")
            #expect(machine.nextDeadline == deadline, "a byte does not extend the deadline")
        }
        clock.advance(by: .milliseconds(1500))
        #expect(machine.deadlineReached(transportEstablished: true) == "write")
        #expect(machine.pendingOutputText.hasPrefix("HTTP/1.1 408 "))
    }

    @Test("a handshake that does not finish by the header deadline is closed without an answer")
    func handshakeDeadlineCloses() {
        var machine = makeMachine()
        clock.advance(by: .seconds(10))
        #expect(machine.deadlineReached(transportEstablished: false) == "close")
        #expect(!machine.hasPendingOutput)
    }

    @Test("the body deadline runs from the end of the header section and answers 408")
    func bodyDeadline() {
        var machine = makeMachine { $0.bodyReadTimeout = .milliseconds(500) }
        clock.advance(by: .seconds(3))
        #expect(machine.read("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc") == "wait")
        #expect(machine.phase == .readingBody)
        clock.advance(by: .milliseconds(499))
        #expect(machine.deadlineReached(transportEstablished: true) == "wait")
        #expect(machine.read("def") == "wait")
        clock.advance(by: .milliseconds(1))
        #expect(machine.deadlineReached(transportEstablished: true) == "write")
        #expect(machine.pendingOutputText.hasPrefix("HTTP/1.1 408 "))
    }

    @Test("an idle keep-alive connection is half-closed at the idle deadline, without a 408")
    func idleDeadline() {
        var machine = makeMachine { $0.idleTimeout = .milliseconds(400) }
        _ = machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = machine.responseProduced(.text("x"))
        #expect(machine.writeAll() == "wait")
        #expect(machine.phase == .idle)
        clock.advance(by: .milliseconds(400))
        #expect(machine.deadlineReached(transportEstablished: true) == "halfClose")
        #expect(!machine.hasPendingOutput)
    }

    @Test("the next request's header deadline starts with its first byte, not at the end of the previous one")
    func headerDeadlineFromFirstByteOfNextRequest() {
        var machine = makeMachine { $0.headerReadTimeout = .seconds(1) }
        _ = machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = machine.responseProduced(.text("x"))
        _ = machine.writeAll()
        clock.advance(by: .seconds(5))
        #expect(machine.read("GET /2 HTTP/1.1\r\n") == "wait")
        #expect(machine.nextDeadline == clock.monotonicNanoseconds() + 1_000_000_000)
    }

    @Test("the write deadline runs until the output is empty; partial writes do not extend it")
    func writeDeadline() {
        var machine = makeMachine { $0.writeTimeout = .milliseconds(500) }
        _ = machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = machine.responseProduced(.text(String(repeating: "x", count: 1000)))
        let armed = machine.writeDeadline
        #expect(armed == clock.monotonicNanoseconds() + 500_000_000)
        clock.advance(by: .milliseconds(300))
        #expect(machine.bytesWritten(10) == "write")
        #expect(machine.writeDeadline == armed)
        clock.advance(by: .milliseconds(200))
        #expect(machine.deadlineReached(transportEstablished: true) == "close")
        #expect(machine.isClosed)
    }

    @Test("output written in time clears the write deadline")
    func writeDeadlineClears() {
        var machine = makeMachine { $0.writeTimeout = .milliseconds(500) }
        _ = machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = machine.responseProduced(.text("x"))
        _ = machine.writeAll()
        #expect(machine.writeDeadline == nil)
        clock.advance(by: .seconds(1))
        #expect(machine.deadlineReached(transportEstablished: true) == "wait")
    }

    @Test("no deadline runs while the handler works on a request")
    func noDeadlineWhileAwaitingResponse() {
        var machine = makeMachine()
        _ = machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(machine.nextDeadline == nil)
        clock.advance(by: .seconds(3600))
        #expect(machine.deadlineReached(transportEstablished: true) == "wait")
        #expect(machine.responseProduced(.text("late")) == "write")
    }

    // MARK: Back-pressure and shutdown

    @Test("past the output high-water mark nothing more is read or parsed until the client drains it")
    func highWaterMark() {
        var machine = makeMachine { $0.outboundHighWaterMark = 100 }
        _ = machine.read("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(machine.responseProduced(.text(String(repeating: "x", count: 200))) == "write")
        #expect(!machine.wantsRead)
        #expect(machine.writeAll() == "deliver GET /2", "drained, the buffered request is parsed")
    }

    @Test("shutdown half-closes a connection between requests and lets one in flight finish with close")
    func shutdown() {
        var idle = makeMachine()
        #expect(idle.shutdownBegan() == "halfClose")

        var busy = makeMachine()
        _ = busy.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(busy.shutdownBegan() == "wait")
        _ = busy.responseProduced(.text("x"))
        #expect(busy.pendingOutputText.contains("Connection: close\r\n"))
        #expect(busy.writeAll() == "halfClose")

        var midHead = makeMachine()
        _ = midHead.read("GET / HTTP/1.1\r\n")
        #expect(midHead.shutdownBegan() == "wait", "a request already arriving is finished first")
    }

    @Test("a transport failure closes at once and drops what was queued")
    func transportFailure() {
        var machine = makeMachine()
        _ = machine.read("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = machine.responseProduced(.text("x"))
        #expect(machine.transportFailed() == "close")
        #expect(!machine.hasPendingOutput)
        #expect(machine.nextDeadline == nil)
    }
}

/// Actions compared by a short description (a request by method and path), so expectations read as text.
private func == (action: HTTPConnectionStateMachine.Action, description: String) -> Bool {
    let actual: String
    switch action {
    case .wait: actual = "wait"
    case .write: actual = "write"
    case .deliverRequest(let request): actual = "deliver \(request.method) \(request.path)"
    case .halfClose: actual = "halfClose"
    case .close: actual = "close"
    }
    return actual == description
}

extension HTTPConnectionStateMachine {
    fileprivate mutating func read(_ text: String) -> Action { read(Array(text.utf8)) }

    fileprivate mutating func read(_ bytes: [UInt8]) -> Action {
        bytes.withUnsafeBytes { bytesRead($0) }
    }

    fileprivate var pendingOutputText: String {
        withPendingOutput { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes everything queued, as a transport that accepts all bytes would, and returns the text written.
    fileprivate mutating func takeOutput() -> String {
        let text = pendingOutputText
        _ = bytesWritten(pendingOutputCount)
        return text
    }

    /// The action after everything queued has been written.
    fileprivate mutating func writeAll() -> Action {
        bytesWritten(pendingOutputCount)
    }
}
