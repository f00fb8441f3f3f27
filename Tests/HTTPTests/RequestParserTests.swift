import HTTP1
import Testing

@Suite("HTTPRequestParser without sockets")
struct RequestParserTests {
    /// Feeds `bytes` in slices of `sliceSize` and collects every event until the parser needs more data.
    private func parse(_ text: String, sliceSize: Int, limits: HTTPServerLimits = HTTPServerLimits())
        -> [HTTPRequestParser.Event]
    {
        var parser = HTTPRequestParser(limits: limits)
        var events: [HTTPRequestParser.Event] = []
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + sliceSize, bytes.count)
            parser.append(bytes[offset..<end])
            offset = end
            loop: while true {
                let event = parser.next()
                switch event {
                case .needMoreData: break loop
                case .failure:
                    events.append(event)
                    return events
                case .head, .request: events.append(event)
                }
            }
        }
        return events
    }

    private func requests(_ events: [HTTPRequestParser.Event]) -> [HTTPRequest] {
        events.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }

    @Test("the same requests come out whether bytes arrive whole or one at a time", arguments: [1, 2, 7, 4096])
    func incrementalParsingIsSliceIndependent(sliceSize: Int) {
        let text =
            "\r\nPOST /a?b=c HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
            + "PUT /chunked HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n"
            + "GET / HTTP/1.0\r\n\r\n"
        let parsed = requests(parse(text, sliceSize: sliceSize))
        #expect(parsed.map(\.method) == ["POST", "PUT", "GET"])
        #expect(parsed.map(\.path) == ["/a", "/chunked", "/"])
        #expect(parsed.map(\.query) == ["b=c", nil, nil])
        #expect(parsed.map { $0.body.text } == ["hello", "abc", ""])
        #expect(parsed.map(\.version) == [.http1_1, .http1_1, .http1_0])
        #expect(parsed[0].headers["host"] == "h")
    }

    @Test("the head is reported before the body arrives, with the declared framing")
    func headBeforeBody() {
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n".utf8))
        guard case .head(let head) = parser.next() else {
            Issue.record("expected the head")
            return
        }
        #expect(head.framing == .contentLength(4))
        #expect(head.expectsContinue)
        guard case .needMoreData = parser.next() else {
            Issue.record("the body has not arrived")
            return
        }
        parser.append(Array("body".utf8))
        guard case .request(let request) = parser.next() else {
            Issue.record("expected the request")
            return
        }
        #expect(request.body.text == "body")
    }

    @Test("a failed parser stays failed: a valid request after the error is never parsed")
    func neverResynchronises() {
        var parser = HTTPRequestParser()
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        guard case .failure(.duplicateHost) = parser.next() else {
            Issue.record("expected duplicateHost")
            return
        }
        guard case .failure(.duplicateHost) = parser.next() else {
            Issue.record("expected the same failure again")
            return
        }
    }

    @Test("an incomplete request line longer than the limit fails before its end arrives")
    func longRequestLineFailsEarly() {
        var limits = HTTPServerLimits()
        limits.maxRequestLineLength = 64
        let events = parse("GET /" + String(repeating: "a", count: 100), sliceSize: 10, limits: limits)
        guard case .failure(.requestLineTooLong) = events.last else {
            Issue.record("expected requestLineTooLong, got \(events)")
            return
        }
    }

    @Test("a field count one over the limit is refused, at the limit accepted", arguments: [(3, true), (4, false)])
    func fieldCountLimit(count: Int, accepted: Bool) {
        var limits = HTTPServerLimits()
        limits.maxFieldCount = 3
        let fields = (1..<count).map { "X-\($0): v\r\n" }.joined()
        let events = parse("GET / HTTP/1.1\r\nHost: h\r\n\(fields)\r\n", sliceSize: 4096, limits: limits)
        #expect(requests(events).count == (accepted ? 1 : 0))
    }

    @Test("every framing error maps to the status RFC 9112 and RFC 9110 prescribe")
    func errorStatuses() {
        #expect(HTTPParseError.requestLineTooLong.status.code == 414)
        #expect(HTTPParseError.tooManyFields.status.code == 431)
        #expect(HTTPParseError.fieldLineTooLong.status.code == 431)
        #expect(HTTPParseError.bodyTooLarge.status.code == 413)
        #expect(HTTPParseError.unsupportedTransferCoding.status.code == 501)
        #expect(HTTPParseError.contentLengthWithTransferEncoding.status.code == 400)
    }

    @Test(
        "Host values inside the RFC 3986 authority grammar are accepted",
        arguments: [
            "h", "example.com:443", "127.0.0.1:8080", "[::1]:8443", "[2001:db8::7]", "[v1.fe80::a+en1]", "h:",
            "xn--caf-dma.example", "a%20b", "sub.domain-with_under~score",
        ])
    func validHostIsAccepted(host: String) {
        let events = parse("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", sliceSize: 4096)
        #expect(requests(events).count == 1, "Host: \(host)")
    }

    @Test(
        "chunk extensions inside the RFC 9112 §7.1.1 grammar are accepted and ignored",
        arguments: [
            "5;a", "5;a=b", "5 ; a = b", "5;a=\"quoted \\\" value\";b;c=d", "5;a=\"\"", "5\t;\ta\t=\t\"x\"",
        ])
    func validChunkExtensionIsAccepted(line: String) {
        let events = parse(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(line)\r\nhello\r\n0\r\n\r\n",
            sliceSize: 4096)
        #expect(requests(events).first?.body == Array("hello".utf8), "chunk line \(line)")
    }

    /// Regression (fuzzing, http-request): a request line over the limit that ended in a bare LF was
    /// `bareLineEnding` (400) in one piece and `requestLineTooLong` (414) when it arrived in pieces.
    @Test(
        "a line over a limit with a bad ending gets the same error however it is split",
        arguments: [
            "GET /H Sub" + String(repeating: "D", count: 9000) + "TTP/1.1\n\u{16}\n",
            "GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 9000) + "\rx\r\n\r\n",
            "GET / HTTP/1.1\r\n" + String(repeating: "X-A: 1234567890\r\n", count: 2000) + "Bad\n\r\n",
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "0", count: 400)
                + "\n",
        ])
    func limitVerdictIsSliceIndependent(text: String) {
        func failure(_ events: [HTTPRequestParser.Event]) -> HTTPParseError? {
            guard case .failure(let error)? = events.last else { return nil }
            return error
        }
        let whole = failure(parse(text, sliceSize: 1 << 20))
        #expect(whole != nil)
        for size in [1, 2, 3, 7, 64, 4096] {
            #expect(failure(parse(text, sliceSize: size)) == whole, "slices of \(size)")
        }
    }
}
