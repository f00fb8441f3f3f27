import Foundation
import HTTP1
import HTTPServer
import Testing

@testable import HTTPServer

/// What a server answers is outside input (Apple, a transmitter, a key server, a webhook receiver): every
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
        let served = Task { await Self.onThread { listener.serveOnce(response: response) } }
        let client = HTTPClient(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        await #expect(throws: HTTPClientError.malformedResponse, "\(name)") { try await client.get("/") }
        _ = await served.value
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

    static func text(_ response: String, splits: [Int] = []) -> Result<HTTPClientResponse, HTTPClientError> {
        read(Array(response.utf8), splits: splits)
    }

    @Test("framing: Transfer-Encoding over Content-Length, repeated lengths agree, HEAD-like statuses carry no body")
    func framing() throws {
        let gzipLast = try Self.text(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\nabcdef"
        ).get()
        #expect(gzipLast.body == Array("abcdef".utf8), "a coding other than chunked last: the body runs to the close")
        let agreeing = try Self.text("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3, 3\r\n\r\nabc").get()
        #expect(agreeing.body == Array("abc".utf8))
        #expect(throws: HTTPClientError.malformedResponse) {
            try Self.text("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd").get()
        }
        for status in ["204 No Content", "304 Not Modified"] {
            let response = try Self.text("HTTP/1.1 \(status)\r\nContent-Length: 3\r\n\r\n").get()
            #expect(response.body.isEmpty)
        }
        #expect(throws: HTTPClientError.malformedResponse, "chunk data not followed by CRLF") {
            try Self.text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n0\r\n\r\n").get()
        }
        let interim = String(repeating: "HTTP/1.1 103 Early Hints\r\n\r\n", count: 9)
        #expect(throws: HTTPClientError.malformedResponse, "more than 8 interim responses") {
            try Self.text(interim + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").get()
        }
    }

    @Test("a body trickled in one-byte chunks is read with the buffer bounded, not grown by every byte read")
    func bufferBounded() throws {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunks = String(repeating: "1\r\nx\r\n", count: 50_000)
        let bytes = Array("\(head)\(chunks)0\r\n\r\n".utf8)
        var reader = HTTPResponseReader(limits: HTTPClientLimits())
        // Each piece ends one byte into a chunk's size line, so a part of one is always waiting: the buffer
        // never empties of itself.
        var offset = 0
        var pieceEnd = head.utf8.count + 1
        var largest = 0
        let response = try reader.readResponse(isHead: false) {
            (buffer: inout [UInt8]) throws(HTTPClientError) -> Bool in
            guard offset < bytes.count else { return false }
            let end = min(bytes.count, pieceEnd)
            pieceEnd += 6
            buffer.append(contentsOf: bytes[offset..<end])
            offset = end
            largest = max(largest, buffer.count)
            return true
        }
        #expect(response.body.count == 50_000)
        #expect(largest <= HTTPResponseReader.compactionThreshold + 64, "the buffer held \(largest) bytes")
    }

    @Test("bytes past a response's framing close the connection instead of being read as the next response")
    func leftoverClosesTheConnection() async throws {
        let listener = try RawListener()
        let port = listener.port
        // Blocking sockets on threads of their own: the test's concurrency threads are few and shared.
        let served = Task {
            await Self.onThread {
                listener.serveOnce(response: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n")
            }
        }
        // The extra bytes come in the same segment as the response.
        let (body, open) = try await Self.onThread { () throws(HTTPClientError) -> ([UInt8], Bool) in
            let connection = try HTTPClientConnection(host: "127.0.0.1", port: port, timeout: .seconds(5))
            let response = try connection.send(HTTPClientRequest(target: "/"))
            return (response.body, connection.isOpen)
        }.get()
        #expect(body == Array("ok".utf8))
        #expect(!open)
        _ = await served.value
    }

    /// Runs blocking work on a thread of its own and answers its result. Not a ``BlockingExecutor``: a bounded
    /// pool queues a client behind listeners blocked in accept(2), which stalled the parallel suite for seconds.
    static func onThread<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async -> Result<T, E> {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { () throws(E) in try work() }) }.start()
        }
    }
}
