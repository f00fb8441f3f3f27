import Foundation
import Glibc
import LifecycleCore
import TestSupport
import Testing

/// README, "Metrics" and "Answers": the public listener of the real `serve` answers what the HTTP server
/// refuses before any route (413, 414, 431, 501, 408) and the route's 405 with `Allow: POST`, and counts
/// every one in `lifecycle_http_responses_total{listener,code}`. The requests are raw bytes on a socket.
@Suite("The public listener's refusals, as a process")
struct PublicListenerAnswersProcessTests {
    /// Sends `bytes` and reads what comes back until the server closes the connection or 10 s pass; on a
    /// thread of its own, since the socket blocks.
    static func exchange(port: Int, _ bytes: String) async -> String {
        await withCheckedContinuation { continuation in
            Thread {
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { Glibc.close(descriptor) }
                guard Loopback.connect(descriptor, port: port) else { return continuation.resume(returning: "") }
                var interval = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
                let data = Array(bytes.utf8)
                _ = data.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                var received: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { break }
                    received.append(contentsOf: chunk[0..<count])
                }
                continuation.resume(returning: String(decoding: received, as: UTF8.self))
            }.start()
        }
    }

    static func status(_ response: String) -> Int? {
        response.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }

    @Test("405 with Allow: POST, 413, 414, 431, 501 and 408 from serve's public listener, each counted by code")
    func refusalsAnsweredAndCounted() async throws {
        let fixture = try await ServeFixture()
        try fixture.updatePublicListener(["headerTimeoutMilliseconds": 1500])
        try await fixture.start()
        let port = fixture.publicPort
        let host = "Host: 127.0.0.1\r\nConnection: close\r\n"
        let cases: [(code: Int, request: String)] = [
            (405, "GET /apple/notifications HTTP/1.1\r\n\(host)\r\n"),
            (
                413,
                "POST /apple/notifications HTTP/1.1\r\n\(host)Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
            ),
            (414, "GET /\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\n\(host)\r\n"),
            (431, "GET /healthz HTTP/1.1\r\n\(host)X-Filler: \(String(repeating: "b", count: 70_000))\r\n\r\n"),
            (501, "POST /apple/notifications HTTP/1.1\r\n\(host)Transfer-Encoding: gzip, chunked\r\n\r\n"),
            // The head begun and never finished: the header timeout (1.5 s here) answers 408 and closes.
            (408, "POST /apple/notif"),
        ]
        for (code, request) in cases {
            let response = await Self.exchange(port: port, request)
            #expect(Self.status(response) == code, "\(code): \(response.prefix(300))")
            if code == 405 {
                #expect(response.lowercased().contains("\r\nallow: post\r\n"), "\(response.prefix(300))")
            }
        }
        for (code, _) in cases {
            let counted = try await fixture.metric(
                "lifecycle_http_responses_total", ["listener": "public", "code": String(code)])
            #expect(counted == 1, "code \(code) counted \(String(describing: counted))")
        }
        let health = try await fixture.publicClient().get("/healthz")
        #expect(health.status == 200, "the process lives on")
        #expect(await fixture.stop() == [0])
    }

    @Test("past public.maxConnections a new connection is answered 503 and counted; a held one freed makes room")
    func connectionLimit() async throws {
        let fixture = try await ServeFixture()
        try fixture.updatePublicListener(["maxConnections": 2])
        try await fixture.start()
        let port = fixture.publicPort
        // Two idle connections hold both places.
        let held = (0..<2).map { _ in socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }
        // The first is closed below to free its place; only the second is left for the end (never one twice: a
        // number closed twice may by then be another test's socket).
        defer { Glibc.close(held[1]) }
        for descriptor in held { #expect(Loopback.connect(descriptor, port: port)) }
        try await Task.sleep(for: .milliseconds(300))
        let refused = await Self.exchange(
            port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(Self.status(refused) == 503, "\(refused.prefix(300))")
        // Counted as the refused connection closes, which the client may see first.
        let counted = await eventually(timeout: .seconds(5)) {
            (try? await fixture.metric("lifecycle_http_responses_total", ["listener": "public", "code": "503"])) == 1
        }
        #expect(counted, "the 503 is counted")
        Glibc.close(held[0])
        let admitted = await eventually(timeout: .seconds(10)) {
            Self.status(
                await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            )
                == 200
        }
        #expect(admitted, "a freed place is given to the next connection")
        #expect(await fixture.stop() == [0])
    }
}
