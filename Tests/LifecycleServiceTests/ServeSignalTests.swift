import Foundation
import Glibc
import LifecycleCore
import Synchronization
import TestSupport
import Testing

/// `serve` honours the service manager's stop at any moment, start-up included.
@Suite("serve and SIGTERM")
struct ServeSignalTests {
    @Test(
        "a SIGTERM that arrives while serve is still starting (blocked fetching the key set) stops it once the start completes, exit 0"
    )
    func termDuringStartUp() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let fixture = try await ServeFixture(extra: [
            "apple": ["jwks": .string("https://127.0.0.1:\(silent.port)/auth/keys"), "jwksFetchTimeoutSeconds": 3]
        ])
        let process = try LifecycleProcess.start(
            ["serve", "--config", fixture.configurationFile], environment: fixture.environment,
            standardError: fixture.logFile)
        #expect(
            await eventually(timeout: .seconds(30)) { silent.accepted > 0 },
            "serve reached the key set fetch of its start-up")
        process.kill(signal: SIGTERM)
        let exited = await eventually(timeout: .seconds(60)) { !process.process.isRunning }
        if !exited { process.kill(signal: SIGKILL) }
        #expect(exited, "serve ignored a SIGTERM sent during its start-up")
        let status = await process.waitForExit()
        #expect(status == 0, "exit \(status): \(fixture.log.suffix(2000))")
        #expect(fixture.log.contains("\"serve.stopped\""), "\(fixture.log.suffix(2000))")
    }
}

extension ServeSignalTests {
    @Test("SIGTERM while a provider's first key-set fetch hangs: serve exits 0 at once, not after the fetch timeout")
    func termDuringProviderKeyFetch() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        var app = ServeFixture.app().objectValue ?? [:]
        app["signals"] = [
            [
                "provider": "ssf", "id": "idp", "issuer": "https://idp.example/",
                "jwks": .string("https://127.0.0.1:\(silent.port)/jwks"), "audience": ["https://rp.example/"],
                "jwksFetchTimeoutSeconds": 30,
            ]
        ]
        let fixture = try await ServeFixture(apps: [.object(app)])
        let process = try await fixture.start()
        #expect(await eventually(timeout: .seconds(30)) { silent.accepted > 0 }, "the provider's fetch began")
        let (status, took) = await process.terminate()
        #expect(status == 0)
        #expect(took < .seconds(10), "the stop waited \(took) for a fetch that times out after 30 s")
    }
}

/// A TCP listener on 127.0.0.1 that accepts connections and never sends a byte: a server that hangs.
final class SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32
    private let held = Mutex<[Int32]>([])
    private let count = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)

    var accepted: Int { count.load(ordering: .relaxed) }

    init() throws {
        let opened = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard opened >= 0 else { throw Failure.socket(errno) }
        guard Loopback.bind(opened), listen(opened, 16) == 0, let boundPort = Loopback.boundPort(opened) else {
            let code = errno
            _ = Glibc.close(opened)
            throw Failure.socket(code)
        }
        // Stored only once listening: a throwing initializer that has set every property runs `deinit`.
        descriptor = opened
        port = boundPort
        Thread { [self] in acceptUntilClosed() }.start()
    }

    private func acceptUntilClosed() {
        while !closed.load(ordering: .relaxed) {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            held.withLock { $0.append(client) }
            count.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// Stops accepting (shutdown wakes the blocked `accept`) and closes every connection, once.
    func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        _ = Glibc.close(descriptor)
        for client in held.withLock({ $0 }) { _ = Glibc.close(client) }
    }

    enum Failure: Error { case socket(Int32) }
}
