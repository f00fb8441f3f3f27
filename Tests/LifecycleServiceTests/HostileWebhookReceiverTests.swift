import Foundation
import Glibc
import LifecycleCore
import Synchronization
import TestSupport
import Testing

/// A webhook receiver is a server the service calls, so what it answers is outside input. The real `serve`
/// delivers to one that answers every request with a malformed response (the answers the client's own tests
/// list, a negative chunk size first, which once ended the process in a range check): every attempt fails,
/// the message ends `dead`, and the same process goes on answering Apple.
@Suite("A hostile webhook receiver against serve")
struct HostileWebhookReceiverTests {
    static let answers = [
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 -20 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\nabc",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
    ]

    @Test("malformed answers from the webhook receiver fail each attempt; serve lives on and keeps acknowledging")
    func serveOutlivesAHostileReceiver() async throws {
        let receiver = try HostileAnswerer(answers: Self.answers)
        defer { receiver.stop() }
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(webhook: "http://127.0.0.1:\(receiver.port)/hooks")],
            extra: [
                "outbox": [
                    "maxAttempts": .integer(Int64(Self.answers.count)), "baseDelayMilliseconds": 50,
                    "maxDelayMilliseconds": 100, "pollMilliseconds": 100, "leaseSeconds": 5,
                ]
            ])
        try fixture.writeSecret(ServeProcessTests.webhookSecret, to: "secrets/shop-webhook")
        try await fixture.start()
        let first = fixture.notification(type: "consent-revoked", subject: ServeProcessTests.subject)
        #expect(try await fixture.post(first).status == 200)

        let died = await eventually(timeout: .seconds(20)) {
            (try? await fixture.metric("lifecycle_outbox_messages", ["status": "dead"])) == 1
        }
        #expect(died, "dead after \(Self.answers.count) malformed answers: \(receiver.served) served")
        #expect(receiver.served == Self.answers.count, "each answer was met once, by an attempt of its own")
        let second = fixture.notification(type: "email-disabled", subject: ServeProcessTests.subject)
        #expect(try await fixture.post(second).status == 200, "the same process still acknowledges Apple")
        let listed = try await fixture.lifecycle(
            ["outbox", "list", "--status", "dead", "--json", "--config", fixture.configurationFile])
        let message = try #require(
            JSONValue.parseIfValid(Array(listed.output.utf8))?["messages"]?.arrayValue?.first, "\(listed)")
        #expect(message["attempts"]?.integerValue == Int64(Self.answers.count))
        #expect(message["lastStatusCode"] == .null, "a malformed answer has no status to record: \(message)")
        #expect(message["lastError"]?.stringValue?.isEmpty == false, "\(message)")
        #expect(await fixture.stop() == [0], "serve stops cleanly after them: \(fixture.log.suffix(2000))")
    }
}

/// A raw TCP server on 127.0.0.1 that reads each request (its head and `Content-Length` body) and answers
/// the next of `answers` verbatim, then closes the connection; past the last it answers the last again. Runs
/// on a thread of its own until ``stop()``.
final class HostileAnswerer: Sendable {
    let port: Int
    private let descriptor: Int32
    private let count = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let answers: [String]

    init(answers: [String]) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard Loopback.bind(descriptor), listen(descriptor, 16) == 0, let port = Loopback.boundPort(descriptor) else {
            Glibc.close(descriptor)
            throw RawAnswererError()
        }
        self.descriptor = descriptor
        self.port = port
        self.answers = answers
        Thread { [self] in acceptLoop() }.start()
    }

    /// How many connections were answered.
    var served: Int { count.load(ordering: .acquiring) }

    /// Wakes the accept loop, which then closes the listening socket itself: closed once, by its only user,
    /// never while it is in use. Safe to call more than once.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0, !stopped.load(ordering: .acquiring) else {
                if client >= 0 { Glibc.close(client) }
                Glibc.close(descriptor)
                return
            }
            answer(client)
            Glibc.close(client)
        }
    }

    private func answer(_ client: Int32) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        var bodyEnd: Int?
        while bodyEnd.map({ received.count < $0 }) ?? true {
            let read = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if read <= 0 { return }
            received.append(contentsOf: chunk[0..<read])
            if bodyEnd == nil, let head = received.firstRange(of: separator) {
                let text = String(decoding: received[..<head.lowerBound], as: UTF8.self).lowercased()
                let length = text.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                bodyEnd = head.upperBound + (length ?? 0)
            }
        }
        let index = count.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        let bytes = Array(answers[min(index, answers.count - 1)].utf8)
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

struct RawAnswererError: Error {}
