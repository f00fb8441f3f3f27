import Foundation
import HTTP1
import HTTPServer
import LifecycleDevTools
import Synchronization
import Testing

@Suite("HTTPClient and LoadGenerator against a live server")
struct ClientAndLoadTests {
    @Test("the client posts a body with headers and reads the echoed response")
    func clientPost() async throws {
        try await withServer { _, port in
            let client = HTTPClient(host: "127.0.0.1", port: port, timeout: .seconds(5))
            let response = try await client.post("/echo", headers: ["X-Trace": "1"], body: Array("payload".utf8))
            #expect(response.status == 200)
            #expect(response.body.text == "payload")
            #expect(response.headers["Content-Length"] == "7")
        }
    }

    @Test("the client decodes a chunked response body")
    func clientReadsChunked() async throws {
        // A tiny server that answers with a chunked body, written with raw sockets.
        let listener = try RawListener()
        let port = listener.port
        let served = Task.detached {
            listener.serveOnce(
                response:
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n6;ext=1\r\npedia \r\n0\r\n\r\n")
        }
        let client = HTTPClient(host: "127.0.0.1", port: port, timeout: .seconds(5))
        let response = try await client.get("/")
        #expect(response.body.text == "Wikipedia ")
        await served.value
    }

    @Test("the client times out when the server never answers")
    func clientTimeout() async throws {
        let neverInTime: HTTPServer.Handler = { _ in
            try? await Task.sleep(for: .seconds(10))
            return .empty(.ok)
        }
        try await withServer(handler: neverInTime) { _, port in
            let client = HTTPClient(host: "127.0.0.1", port: port, timeout: .milliseconds(300))
            let started = ContinuousClock.now
            await #expect(throws: HTTPClientError.timedOut) { try await client.get("/") }
            // Far below the handler's 10 s, with room for a loaded 2-core machine.
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test("a keep-alive client connection reuses one socket for many requests")
    func connectionReuse() async throws {
        try await withServer { server, port in
            // The handler runs on the test process's few concurrency threads, which a whole parallel suite
            // keeps busy: the timeout leaves room for that, and a failure is reported instead of trapping
            // the whole run. What is asserted is the reuse, not the latency.
            let counts = await withCheckedContinuation { continuation in
                Thread {
                    var statuses: [Int] = []
                    var failure: String?
                    do {
                        let connection = try HTTPClientConnection(host: "127.0.0.1", port: port, timeout: .seconds(60))
                        for index in 0..<20 {
                            statuses.append(try connection.send(HTTPClientRequest(target: "/\(index)")).status)
                        }
                    } catch {
                        failure = "request \(statuses.count) failed: \(error)"
                    }
                    continuation.resume(returning: (statuses, server.acceptedConnectionCount, failure))
                }.start()
            }
            #expect(counts.2 == nil)
            #expect(counts.0 == Array(repeating: 200, count: 20))
            #expect(counts.1 == 1, "the server accepted one connection for the 20 requests")
        }
    }

    @Test("the load generator records every request's status and reports latency percentiles")
    func loadGeneratorCountsEveryRequest() async throws {
        try await withServer { _, port in
            let observed = Mutex<Set<Int>>([])
            var configuration = LoadGenerator.Configuration(
                host: "127.0.0.1", port: port, connections: 4, totalRequests: 2000)
            // The test counts requests, not deadlines: with the whole suite beside it on two cores the server's
            // tasks can wait longer than the default 10 s for a thread, and a timed-out exchange is not counted.
            configuration.requestTimeout = .seconds(60)
            let generator = LoadGenerator(
                configuration: configuration,
                request: { sequence in
                    HTTPClientRequest(method: "POST", target: "/n/\(sequence)", body: Array("\(sequence)".utf8))
                },
                onResponse: { sample, response in
                    if response?.body.text == "POST /n/\(sample.sequence) query=- body=\(String(sample.sequence).count)"
                    {
                        observed.withLock { _ = $0.insert(sample.sequence) }
                    }
                })
            let result = await generator.run()
            #expect(result.count == 2000)
            #expect(result.samples.map(\.sequence) == Array(0..<2000))
            #expect(result.statusCounts == [200: 2000])
            #expect(observed.withLock { $0.count } == 2000)
            #expect(result.p50 <= result.p99 && result.p99 <= result.p999)
            #expect(result.requestsPerSecond > 0)
            print("load: \(Int(result.requestsPerSecond)) req/s, p50 \(result.p50), p99 \(result.p99)")
        }
    }

    @Test("the load generator stops after its duration")
    func loadGeneratorDuration() async throws {
        try await withServer { _, port in
            let generator = LoadGenerator(
                configuration: LoadGenerator.Configuration(
                    host: "127.0.0.1", port: port, connections: 2, duration: .milliseconds(300)),
                request: { _ in HTTPClientRequest(target: "/") })
            let started = ContinuousClock.now
            let result = await generator.run()
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(result.count > 0)
            #expect(result.failureCount == 0)
        }
    }
}
