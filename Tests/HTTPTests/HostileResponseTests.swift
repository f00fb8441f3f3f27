import HTTP1
import HTTPServer
import Testing

@testable import HTTPServer

/// What a server answers is outside input (Apple, a transmitter, a key server, a timestamp authority): every
/// malformed or oversized answer is a thrown error the caller handles, never a trap of the process.
@Suite("Hostile responses to the HTTP client")
struct HostileResponseTests {
    static let malformed: [(String, String)] = [
        ("negative chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nabc\r\n0\r\n\r\n"),
        ("plus-signed chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nabcde\r\n0\r\n\r\n"),
        (
            "chunk size with a token character",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5x\r\nabcde\r\n0\r\n\r\n"
        ),
        ("signed status", "HTTP/1.1 +20 OK\r\nContent-Length: 0\r\n\r\n"),
        ("negative status", "HTTP/1.1 -20 OK\r\nContent-Length: 0\r\n\r\n"),
        ("status below 100", "HTTP/1.1 099 OK\r\nContent-Length: 0\r\n\r\n"),
        ("signed Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\nabc"),
        ("HTTP/1.7", "HTTP/1.7 200 OK\r\nContent-Length: 0\r\n\r\n"),
        ("bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\n\n"),
    ]

    @Test("a malformed answer through a socket is HTTPClientError.malformedResponse", arguments: malformed)
    func malformedOverTheSocket(name: String, response: String) async throws {
        let listener = try RawListener()
        let served = Task.detached { listener.serveOnce(response: response) }
        let client = HTTPClient(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        await #expect(throws: HTTPClientError.malformedResponse, "\(name)") { try await client.get("/") }
        await served.value
    }

    static func read(_ bytes: [UInt8], splits: [Int], limits: HTTPClientLimits = HTTPClientLimits()) -> Result<
        HTTPClientResponse, HTTPClientError
    > {
        var reader = HTTPResponseReader(limits: limits)
        var offset = 0
        var splitIndex = 0
        return Result { () throws(HTTPClientError) in
            try reader.readResponse(isHead: false) { (buffer: inout [UInt8]) throws(HTTPClientError) -> Bool in
                guard offset < bytes.count else { return false }
                let size = splitIndex < splits.count ? max(1, splits[splitIndex]) : bytes.count
                splitIndex += 1
                let end = min(bytes.count, offset + size)
                buffer.append(contentsOf: bytes[offset..<end])
                offset = end
                return true
            }
        }
    }

    @Test("the same bytes read the same whether they arrive whole or a byte at a time")
    func splitsReadTheSame() {
        let response = Array(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n4\r\nWiki\r\n6;ext=1\r\npedia \r\n0\r\nTrailer: x\r\n\r\n"
                .utf8)
        let whole = Self.read(response, splits: [])
        let bytewise = Self.read(response, splits: Array(repeating: 1, count: response.count))
        guard case .success(let one) = whole, case .success(let other) = bytewise else {
            Issue.record("\(whole) \(bytewise)")
            return
        }
        #expect(one.status == 200 && other.status == 200)
        #expect(String(decoding: one.body, as: UTF8.self) == "Wikipedia ")
        #expect(one.body == other.body)
        #expect(one.headers["X-A"] == "b" && other.headers["X-A"] == "b")
    }

    @Test("chunks past the body limit and a trailer past the header limit are refused as too large")
    func limits() {
        var limits = HTTPClientLimits()
        limits.maxBodyLength = 8
        limits.maxHeaderSectionLength = 64
        let big = Array(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n5\r\nfghij\r\n0\r\n\r\n".utf8)
        #expect(throws: HTTPClientError.responseTooLarge) { try Self.read(big, splits: [], limits: limits).get() }
        let trailer =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
            + (0..<20).map { "T\($0): xxxxxxxx\r\n" }.joined() + "\r\n"
        #expect(throws: HTTPClientError.responseTooLarge) {
            try Self.read(Array(trailer.utf8), splits: [], limits: limits).get()
        }
    }
}
