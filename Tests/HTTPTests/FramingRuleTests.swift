import HTTP1
import Testing

/// One case per RFC 9112 framing rule: the exact octets on the wire and the status the server must answer
/// with before closing the connection (never resynchronising).
struct FramingCase: Sendable, CustomTestStringConvertible {
    let rule: String
    let bytes: [UInt8]
    let status: Int

    init(_ rule: String, _ text: String, _ status: Int) {
        self.rule = rule
        self.bytes = Array(text.utf8)
        self.status = status
    }

    init(_ rule: String, bytes: [UInt8], _ status: Int) {
        self.rule = rule
        self.bytes = bytes
        self.status = status
    }

    var testDescription: String { rule }

    static let all: [FramingCase] = [
        FramingCase(
            "duplicate equal Content-Length",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400),
        FramingCase("Content-Length as a list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\nabc", 400),
        FramingCase("plus-signed Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc", 400),
        FramingCase("minus-signed Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        FramingCase(
            "overflowing Content-Length",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400),
        FramingCase(
            "Transfer-Encoding with Content-Length",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            400),
        FramingCase(
            "Transfer-Encoding chunked, gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
            501),
        FramingCase("Transfer-Encoding gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        FramingCase(
            "Transfer-Encoding on HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk size with too many hex digits",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0000000001\r\na\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk size that overflows",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n", 400),
        FramingCase(
            "chunk larger than the body limit",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n", 413),
        FramingCase(
            "chunk extension longer than the limit",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "x", count: 600)
                + "\r\na\r\n0\r\n\r\n", 400),
        // Regression: each of these chunk-size lines passed framing (RFC 9112 §7.1.1).
        FramingCase(
            "empty chunk extension",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;\r\nab\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk extension name that is not a token",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;bad[=x\r\nab\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk extension with an unterminated quoted value",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"unterminated\r\nab\r\n0\r\n\r\n", 400
        ),
        FramingCase(
            "chunk extension with only whitespace after the semicolon",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2; \r\nab\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk extension without a name",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;=x\r\nab\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk extension with trailing whitespace",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;a \r\nab\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk extension with an empty value",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\r\nab\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk extension value with a space",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;a=b c\r\nab\r\n0\r\n\r\n", 400),
        FramingCase(
            "chunk data without CRLF",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", 400),
        FramingCase("obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n two\r\n\r\n", 400),
        FramingCase("missing Host on HTTP/1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
        FramingCase("duplicate Host", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        // Regression: each of these Host values was answered 200 (RFC 9112 §3.2, RFC 9110 §7.2, RFC 3986 §3.2.2).
        FramingCase("Host with userinfo", "GET / HTTP/1.1\r\nHost: user@h\r\n\r\n", 400),
        FramingCase("Host with a path", "GET / HTTP/1.1\r\nHost: h/path\r\n\r\n", 400),
        FramingCase("empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", 400),
        FramingCase("blank Host", "GET / HTTP/1.1\r\nHost:  \r\n\r\n", 400),
        FramingCase("Host as a list", "GET / HTTP/1.1\r\nHost: a, b\r\n\r\n", 400),
        FramingCase("Host with a space", "GET / HTTP/1.1\r\nHost: bad host\r\n\r\n", 400),
        FramingCase("Host with a non-numeric port", "GET / HTTP/1.1\r\nHost: h:8o\r\n\r\n", 400),
        FramingCase("Host with an unclosed IP literal", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", 400),
        FramingCase("Host with a bad percent-escape", "GET / HTTP/1.1\r\nHost: h%zz\r\n\r\n", 400),
        FramingCase("invalid Host on HTTP/1.0", "GET / HTTP/1.0\r\nHost: user@h\r\n\r\n", 400),
        FramingCase("whitespace before the colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        FramingCase("field name that is not a token", "GET / HTTP/1.1\r\nHost: a\r\nX(y): 1\r\n\r\n", 400),
        FramingCase("bare CR in a field value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\n\r\n", 400),
        FramingCase("bare LF line ending", "GET / HTTP/1.1\nHost: a\n\n", 400),
        FramingCase(
            "NUL in a field value",
            bytes: Array("GET / HTTP/1.1\r\nHost: a\r\nX-A: b".utf8) + [0] + Array("c\r\n\r\n".utf8),
            400),
        FramingCase(
            "other control octet in a field value",
            bytes: Array("GET / HTTP/1.1\r\nHost: a\r\nX-A: b".utf8) + [0x07] + Array("\r\n\r\n".utf8), 400),
        FramingCase("request line without spaces", "GET/HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        FramingCase("two spaces in the request line", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        FramingCase("lower-case version", "GET / http/1.1\r\nHost: a\r\n\r\n", 400),
        FramingCase("HTTP/2.0 on an HTTP/1 connection", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        FramingCase(
            "request target longer than the request-line limit",
            "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414),
        FramingCase(
            "non-UTF-8 octets in the request target",
            bytes: Array("GET /caf".utf8) + [0xC3, 0x28, 0xFF]
                + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8), 400),
        FramingCase(
            "non-UTF-8 octets in a field name",
            bytes: Array("GET / HTTP/1.1\r\nHost: a\r\nX-".utf8) + [0xFF]
                + Array(": 1\r\n\r\n".utf8), 400),
        FramingCase("fragment in the target", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        FramingCase("authority-form target", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n", 400),
        FramingCase("Expect other than 100-continue", "GET / HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\n\r\n", 417),
        FramingCase(
            "declared body over the limit",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", 413),
        FramingCase(
            "10,000 header fields",
            "GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X-A: 1\r\n", count: 10_000) + "\r\n",
            431),
        FramingCase(
            "a 1 MiB header line",
            "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "b", count: 1024 * 1024) + "\r\n\r\n", 431),
        FramingCase(
            "header section over the limit",
            "GET / HTTP/1.1\r\nHost: a\r\n"
                + (0..<60).map { "X-\($0): " + String(repeating: "v", count: 1000) + "\r\n" }.joined() + "\r\n", 431),
    ]
}

@Suite("Request framing rules (RFC 9112)")
struct FramingRuleTests {
    @Test(
        "a malformed request gets its status with Connection: close and the connection is closed",
        arguments: FramingCase.all)
    func malformedRequestIsRefusedAndClosed(_ framing: FramingCase) async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send(framing.bytes)
            // A valid request right behind the bad one must never be answered: no resynchronisation.
            connection.send("GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n")
            let (bytes, closed) = await connection.readUntilClose()
            let text = bytes.text
            #expect(text.hasPrefix("HTTP/1.1 \(framing.status) "), "got: \(text.prefix(80))")
            #expect(text.contains("\r\nConnection: close\r\n"))
            #expect(text.contains("\r\nDate: "))
            #expect(!text.contains("100 Continue"))
            #expect(!text.contains("/smuggled"))
            #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "exactly one response")
            #expect(closed)
        }
    }

    @Test("obs-text (non-UTF-8 octets) in a field value is accepted, as RFC 9110 §5.5 allows")
    func obsTextInValueIsAccepted() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send(
                Array("GET /x HTTP/1.1\r\nHost: a\r\nX-Name: caf".utf8) + [0xE9, 0xFF] + Array("\r\n\r\n".utf8))
            let response = try #require(await connection.readResponse())
            #expect(response.status == 200)
            #expect(response.bodyText == "GET /x query=- body=0")
        }
    }
}
