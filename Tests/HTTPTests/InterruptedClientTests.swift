import Foundation
import HTTP1
import HTTPServer
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Signals that reached the test's handler.
private let interruptions = Atomic<Int>(0)

/// A signal caught by a handler cuts a blocking call short with `EINTR`; on a socket with a receive or send
/// timeout (the client's) the kernel never restarts it, whatever `SA_RESTART` says (signal(7)). OpenSSL's
/// socket layer reports such a call as "want read", as it does the timeout itself: the client must make the
/// call again, not report a timeout, over TLS and over plain TCP.
@Suite("HTTP client: calls cut short by a signal", .serialized)
struct InterruptedClientTests {
    /// Sends SIGUSR2 (caught by a handler that only counts it) to the thread that runs `body` every 10 ms
    /// until `body` returns.
    static func underSignals<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> (T, Int) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }
        let target = Mutex<pthread_t?>(nil)
        let done = Atomic<Bool>(false)
        let before = interruptions.load(ordering: .relaxed)
        let sender = Thread {
            while !done.load(ordering: .relaxed) {
                // Under the lock the body's thread clears before it ends: never a thread that has gone.
                target.withLock { thread in if let thread { _ = pthread_kill(thread, SIGUSR2) } }
                usleep(10_000)
            }
        }
        sender.start()
        defer { done.store(true, ordering: .relaxed) }
        let value = try await onThread {
            // A thread started from the concurrency pool inherits its mask, which blocks most signals.
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            target.withLock { $0 = pthread_self() }
            defer { target.withLock { $0 = nil } }
            return try body()
        }
        return (value, interruptions.load(ordering: .relaxed) - before)
    }

    @Test("a TLS exchange whose answer comes while signals arrive completes", arguments: [false, true])
    func tls(reused: Bool) async throws {
        let fixture = try TLSFixture()
        let context = try fixture.context()
        try await withServer(testConfiguration { $0.transport = .tls(context) }) { _, port in
            let (status, signals) = try await Self.underSignals {
                let connection = try HTTPClientConnection(
                    host: "localhost", port: port, timeout: .seconds(5), tls: fixture.client())
                if reused { _ = try connection.send(HTTPClientRequest(target: "/first")) }
                return try connection.send(HTTPClientRequest(target: "/sleep/400")).status
            }
            #expect(status == 200)
            #expect(signals >= 10, "the signals arrived while the client waited: \(signals)")
        }
    }

    @Test(
        "signals arriving more often than the timeout do not keep an exchange with a silent server open",
        arguments: [true, false])
    func deadline(tls: Bool) async throws {
        let fixture = try TLSFixture()
        let context = try fixture.context()
        try await withServer(testConfiguration { if tls { $0.transport = .tls(context) } }) { _, port in
            let (outcome, signals) = try await Self.underSignals {
                let connection = try HTTPClientConnection(
                    host: "localhost", port: port, timeout: .milliseconds(500), tls: tls ? fixture.client() : nil)
                _ = try connection.send(HTTPClientRequest(target: "/first"))
                let started = ContinuousClock.now
                let result = Result { () throws(HTTPClientError) in
                    try connection.send(HTTPClientRequest(target: "/sleep/3000")).status
                }
                return (result, ContinuousClock.now - started)
            }
            #expect(signals >= 10)
            #expect(throws: HTTPClientError.timedOut) { try outcome.0.get() }
            #expect(outcome.1 < .seconds(2), "timed out after \(outcome.1), the answer came at 3 s")
        }
    }

    @Test("a plain exchange whose answer comes while signals arrive completes")
    func plain() async throws {
        try await withServer { _, port in
            let (status, signals) = try await Self.underSignals {
                let connection = try HTTPClientConnection(host: "127.0.0.1", port: port, timeout: .seconds(5))
                return try connection.send(HTTPClientRequest(target: "/sleep/400")).status
            }
            #expect(status == 200)
            #expect(signals >= 10, "the signals arrived while the client waited: \(signals)")
        }
    }
}
