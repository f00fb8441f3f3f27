import HTTP1

/// The HTTP/1.1 request parser, with chunked bodies and pipelining (RFC 9112).
///
/// Properties: the same bytes give the same events whether they arrive in one piece or in random splits
/// (down to one byte); a failure is final; every request is within the limits; and a parsed request,
/// written out again with a Content-Length body, parses back to the same request.
enum HTTPRequestParserTarget {
    static let target = FuzzTarget(
        name: "http-request",
        summary: "HTTP/1.1 request parser: one piece = random splits, failure is final, limits hold, re-serialised "
            + "request parses back equal",
        check: check)

    /// Small limits, so the fuzzer reaches every limit with short inputs.
    static let limits: HTTPServerLimits = {
        var limits = HTTPServerLimits()
        limits.maxRequestLineLength = 96
        limits.maxFieldLineLength = 96
        limits.maxHeaderSectionLength = 384
        limits.maxFieldCount = 8
        limits.maxBodyLength = 256
        limits.maxChunkSizeDigits = 4
        limits.maxChunkExtensionLength = 32
        return limits
    }()

    /// Inputs up to this length are also fed one byte at a time.
    static let bytewiseLimit = 160

    /// What an event says, in a comparable form.
    enum Outcome: Equatable {
        case head(method: String, target: String, version: HTTPVersion, fields: [HTTPField], framing: HTTPBodyFraming)
        case request(RequestSummary)
        case failure(HTTPParseError)
    }

    struct RequestSummary: Equatable {
        var method: String
        var target: String
        var path: String
        var query: String?
        var version: HTTPVersion
        var fields: [HTTPField]
        var body: [UInt8]

        init(_ request: HTTPRequest) {
            method = request.method
            target = request.target
            path = request.path
            query = request.query
            version = request.version
            fields = request.headers.fields
            body = request.body
        }
    }

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let whole = outcomes(bytes, splits: [])
        var random = FuzzRandom(bytes: bytes)
        let splitCount = bytes.isEmpty ? 0 : Int(random.next() % 16) + 1
        let splits = random.cuts(count: splitCount, length: bytes.count)
        try require(!whole.contains(where: { $0 == nil }), "the parser resynchronised after a failure")
        let pieces = outcomes(bytes, splits: splits)
        try require(whole == pieces, "events differ between one piece and splits at \(splits)")
        // One byte at a time is quadratic in the parser's buffer handling; short inputs get it.
        if bytes.count <= Self.bytewiseLimit {
            let bytewise = outcomes(bytes, splits: Array(0...bytes.count))
            try require(whole == bytewise, "events differ between one piece and one byte at a time")
        }
        for outcome in whole {
            guard case .request(let request)? = outcome else { continue }
            try requireWithinLimits(request)
            try requireRoundTrip(request)
        }
    }

    /// Feeds `bytes` cut at `splits` and collects events until the input runs out or the parser fails. After a
    /// failure a valid request is appended: a parser that then reports anything but the same failure has
    /// resynchronised, which RFC 9112 §11.2 forbids, and is recorded as a `nil` outcome.
    static func outcomes(_ bytes: [UInt8], splits: [Int]) -> [Outcome?] {
        var parser = HTTPRequestParser(limits: limits)
        var outcomes: [Outcome?] = []
        var start = 0
        for end in splits + [bytes.count] where end >= start {
            parser.append(bytes[start..<end])
            start = end
            reading: while true {
                switch parser.next() {
                case .needMoreData:
                    break reading
                case .head(let head):
                    outcomes.append(
                        .head(
                            method: head.method, target: head.target, version: head.version,
                            fields: head.headers.fields, framing: head.framing))
                case .request(let request):
                    outcomes.append(.request(RequestSummary(request)))
                case .failure(let error):
                    outcomes.append(.failure(error))
                    parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                    if case .failure(let again) = parser.next(), again == error { return outcomes }
                    return outcomes + [nil]
                }
            }
        }
        return outcomes
    }

    static func requireWithinLimits(_ request: RequestSummary) throws(PropertyFailure) {
        try require(request.body.count <= limits.maxBodyLength, "body of \(request.body.count) bytes passed the limit")
        try require(request.fields.count <= limits.maxFieldCount, "\(request.fields.count) fields passed the limit")
        try require(
            request.method.utf8.count + request.target.utf8.count + 10 <= limits.maxRequestLineLength,
            "request line passed the limit")
        for field in request.fields {
            // Octets that are not UTF-8 (obs-text) arrive as U+FFFD, 3 bytes for 1 on the wire.
            let replaced = field.value.unicodeScalars.count { $0 == "\u{FFFD}" }
            try require(
                field.name.utf8.count + 1 + field.value.utf8.count - 2 * replaced <= limits.maxFieldLineLength,
                "field line passed the limit")
        }
        let hosts = request.fields.filter { $0.name.lowercased() == "host" }
        try require(hosts.count <= 1, "more than one Host accepted")
        try require(request.version == .http1_0 || hosts.count == 1, "HTTP/1.1 request without Host accepted")
    }

    /// Writes the request with its fields (framing fields replaced by one Content-Length) and parses it again.
    static func requireRoundTrip(_ request: RequestSummary) throws(PropertyFailure) {
        let kept = request.fields.filter {
            let name = $0.name.lowercased()
            return name != "content-length" && name != "transfer-encoding"
        }
        var text = "\(request.method) \(request.target) \(request.version)\r\n"
        for field in kept { text += "\(field.name): \(field.value)\r\n" }
        if !request.body.isEmpty { text += "Content-Length: \(request.body.count)\r\n" }
        text += "\r\n"
        var roomy = limits
        roomy.maxFieldLineLength *= 4
        roomy.maxHeaderSectionLength *= 4
        roomy.maxFieldCount += 1
        var parser = HTTPRequestParser(limits: roomy)
        parser.append(Array(text.utf8) + request.body)
        var event = parser.next()
        if case .head = event { event = parser.next() }
        guard case .request(let again) = event else {
            throw PropertyFailure("a parsed request does not parse again once re-serialised: \(event)")
        }
        var expected = request
        expected.fields = kept
        var actual = RequestSummary(again)
        actual.fields = actual.fields.filter { $0.name.lowercased() != "content-length" }
        try require(actual == expected, "re-serialised request parses to something else")
    }
}
