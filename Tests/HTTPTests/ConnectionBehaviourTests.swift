import Foundation
import HTTP1
import HTTPServer
import Testing

@Suite("Connection behaviour: keep-alive, pipelining, HEAD, Expect, chunked bodies")
struct ConnectionBehaviourTests {
    @Test("pipelined requests are answered in order even when an earlier handler is slower")
    func pipelinedRequestsAnsweredInOrder() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send(
                "GET /sleep/300 HTTP/1.1\r\nHost: a\r\n\r\nGET /sleep/0 HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /third?x=1 HTTP/1.1\r\nHost: a\r\n\r\n")
            let first = try #require(await connection.readResponse())
            let second = try #require(await connection.readResponse())
            let third = try #require(await connection.readResponse())
            #expect(first.bodyText == "/sleep/300")
            #expect(second.bodyText == "/sleep/0")
            #expect(third.bodyText == "GET /third query=x=1 body=0")
        }
    }

    @Test("HEAD gets the GET headers and Content-Length but no body")
    func headHasNoBody() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send("HEAD /thing HTTP/1.1\r\nHost: a\r\n\r\nGET /after HTTP/1.1\r\nHost: a\r\n\r\n")
            let head = try #require(await connection.readResponse(head: true))
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == String("HEAD /thing query=- body=0".utf8.count))
            #expect(head.body.isEmpty)
            // The next response starts right after the HEAD response's header section.
            let next = try #require(await connection.readResponse())
            #expect(next.bodyText == "GET /after query=- body=0")
        }
    }

    @Test("every response carries Content-Length and an IMF-fixdate Date")
    func contentLengthAndDateAlwaysSent() async throws {
        let emptyOK: HTTPServer.Handler = { _ in .empty(.ok) }
        try await withServer(handler: emptyOK) { _, port in
            let connection = try RawConnection(port: port)
            connection.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = try #require(await connection.readResponse())
            #expect(response.header("Content-Length") == "0")
            let date = try #require(response.header("Date"))
            #expect(date.hasSuffix(" GMT") && date.count == 29, "IMF-fixdate: \(date)")
        }
    }

    @Test("Expect: 100-continue with an oversized body gets 413 and never 100 Continue")
    func expectContinueOversizedGets413() async throws {
        try await withServer(testConfiguration { $0.limits.maxBodyLength = 1024 }) { _, port in
            let connection = try RawConnection(port: port)
            connection.send(
                "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n")
            let (bytes, closed) = await connection.readUntilClose()
            #expect(bytes.text.hasPrefix("HTTP/1.1 413 "))
            #expect(!bytes.text.contains("100 Continue"))
            #expect(closed)
        }
    }

    @Test("Expect: 100-continue with an acceptable body gets 100 Continue, then the final response")
    func expectContinueAcceptedBody() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try #require(await connection.readResponse())
            #expect(interim.status == 100)
            connection.send("hello")
            let final = try #require(await connection.readResponse())
            #expect(final.status == 200)
            #expect(final.bodyText == "hello")
        }
    }

    @Test("a chunked body with extensions and trailers round-trips to the handler")
    func chunkedBodyRoundTrip() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send(
                "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;name=value\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n")
            let response = try #require(await connection.readResponse())
            #expect(response.status == 200)
            #expect(response.bodyText == "hello 0123456789")
        }
    }

    @Test("a chunked body split across many small writes is reassembled")
    func chunkedBodyInPieces() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            let message =
                "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
            for byte in message.utf8 {
                connection.send([byte])
            }
            let response = try #require(await connection.readResponse())
            #expect(response.bodyText == "abcde")
        }
    }

    @Test("an HTTP/1.1 connection is reused for several requests")
    func keepAliveReuse() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            for index in 0..<3 {
                connection.send("POST /n\(index) HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi")
                let response = try #require(await connection.readResponse())
                #expect(response.bodyText == "POST /n\(index) query=- body=2")
                #expect(response.header("Connection") == nil)
            }
        }
    }

    @Test("HTTP/1.0 without keep-alive is answered and closed")
    func http10Closes() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send("GET /old HTTP/1.0\r\n\r\n")
            let (bytes, closed) = await connection.readUntilClose()
            #expect(bytes.text.hasPrefix("HTTP/1.1 200 "))
            #expect(bytes.text.contains("\r\nConnection: close\r\n"))
            #expect(closed)
        }
    }

    @Test("HTTP/1.0 with Connection: keep-alive stays open")
    func http10KeepAlive() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = try #require(await connection.readResponse())
            #expect(first.header("Connection") == "keep-alive")
            connection.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let second = try #require(await connection.readResponse())
            #expect(second.bodyText == "GET /b query=- body=0")
        }
    }

    @Test("Connection: close on HTTP/1.1 is honoured")
    func http11ConnectionClose() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            let (bytes, closed) = await connection.readUntilClose()
            #expect(bytes.text.contains("\r\nConnection: close\r\n"))
            #expect(closed)
        }
    }

    @Test("the server closes a connection after the per-connection request cap")
    func requestsPerConnectionCap() async throws {
        try await withServer(testConfiguration { $0.maxRequestsPerConnection = 2 }) { _, port in
            let connection = try RawConnection(port: port)
            connection.send(
                "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3 HTTP/1.1\r\nHost: a\r\n\r\n"
            )
            let (bytes, closed) = await connection.readUntilClose()
            let text = bytes.text
            #expect(text.contains("GET /1 query"))
            #expect(text.contains("GET /2 query"))
            #expect(!text.contains("GET /3 query"))
            #expect(text.contains("\r\nConnection: close\r\n"))
            #expect(closed)
        }
    }

    @Test("a client that half-closes after pipelining still gets every response")
    func halfClosedClientGetsResponses() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n")
            connection.shutdownWrite()
            let (bytes, closed) = await connection.readUntilClose()
            #expect(bytes.text.contains("GET /1 query"))
            #expect(bytes.text.contains("GET /2 query"))
            #expect(closed)
        }
    }

    @Test("absolute-form targets are reduced to path and query")
    func absoluteFormTarget() async throws {
        try await withServer { _, port in
            let connection = try RawConnection(port: port)
            connection.send("GET http://example.com/p/q?x=y HTTP/1.1\r\nHost: example.com\r\n\r\n")
            let response = try #require(await connection.readResponse())
            #expect(response.bodyText == "GET /p/q query=x=y body=0")
        }
    }

    @Test("two event loops serve keep-alive connections side by side")
    func twoEventLoops() async throws {
        try await withServer(testConfiguration { $0.eventLoopCount = 2 }) { _, port in
            var connections: [RawConnection] = []
            for _ in 0..<6 { connections.append(try RawConnection(port: port)) }
            for round in 0..<3 {
                for (index, connection) in connections.enumerated() {
                    connection.send("GET /\(index)/\(round) HTTP/1.1\r\nHost: a\r\n\r\n")
                }
                for (index, connection) in connections.enumerated() {
                    let response = try #require(await connection.readResponse())
                    #expect(response.bodyText == "GET /\(index)/\(round) query=- body=0")
                }
            }
        }
    }
}
