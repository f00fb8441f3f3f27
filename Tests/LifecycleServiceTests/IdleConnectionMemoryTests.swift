import Foundation
import Glibc
import LifecycleCore
import Testing

/// "10,000 idle keep-alive connections with bounded memory" (README, Benchmark): one real `lifecycle serve`
/// holds ten thousand connections that each made one request and stayed open, half of them then sending a
/// request head that declares a 60,000-byte body and none of it. The process keeps answering `/healthz`, holds
/// every connection, and its memory grows by at most the documented amount per connection — measured from
/// outside, in `/proc/<pid>/status`. The second half is the case that would show request buffers sized to a
/// declared `Content-Length` rather than to the bytes received: 10,000 × 60 KB of heap (`VmData`).
@Suite("Idle keep-alive connections held by a real serve process", .serialized)
struct IdleConnectionMemoryTests {
    static let connections = 10_000
    /// The declared body of the connections that stop after their request head (under `maxBodyBytes`).
    static let declaredBodyBytes = 60_000
    /// Resident memory a held connection may add: README measures about 1.3 KiB and promises under 4 KiB.
    static let maxResidentBytesPerConnection = 4 * 1024
    /// Private memory mapped (`VmData`) a held connection may add, room included for a few new threads'
    /// stacks: far under half a declared body, so buffers reserved to the declared length fail the test even
    /// where their untouched pages are not resident.
    static let maxHeapBytesPerConnection = 8 * 1024

    /// Descriptors each process needs: the connections, plus what the test process and the server hold besides.
    static let descriptorsNeeded = connections + 1_024

    /// Raises this process's soft descriptor limit to what the test needs (the `serve` process inherits it),
    /// false when the hard limit is lower.
    static let descriptorLimitRaised: Bool = {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_RESOURCE, &limit) == 0 else { return false }
        if limit.rlim_cur >= rlim_t(descriptorsNeeded) { return true }
        guard limit.rlim_max >= rlim_t(descriptorsNeeded) else { return false }
        limit.rlim_cur = rlim_t(descriptorsNeeded)
        return setrlimit(RLIMIT_NOFILE_RESOURCE, &limit) == 0
    }()

    static var RLIMIT_NOFILE_RESOURCE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }

    @Test(
        "10,000 idle keep-alive connections cost a bounded few KiB each, buffers do not grow to a declared body, and /healthz still answers",
        .enabled(
            if: descriptorLimitRaised,
            "the hard limit on open files (ulimit -Hn) is under \(descriptorsNeeded); raise it to run this test"),
        .timeLimit(.minutes(1)))
    func tenThousandIdleConnections() async throws {
        let fixture = try await ServeFixture()
        // The deadlines are not what is measured here: long enough that no connection is closed for them.
        try fixture.updatePublicListener([
            "maxConnections": .integer(Int64(Self.connections + 100)), "headerTimeoutMilliseconds": 120_000,
            "bodyTimeoutMilliseconds": 120_000, "idleTimeoutMilliseconds": 120_000,
        ])
        let process = try await fixture.start()
        let pid = process.process.processIdentifier
        #expect(try await fixture.publicClient().get("/healthz").status == 200)
        let before = try Self.memory(of: pid)

        let herd = ConnectionHerd(port: fixture.publicPort)
        try await herd.open(Self.connections)
        #expect(try await herd.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == Self.connections)
        #expect(try await herd.readResponses(expecting: 200) == Self.connections)
        let half = Self.connections / 2
        let head =
            "POST /apple/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(Self.declaredBodyBytes)\r\n\r\n"
        #expect(try await herd.send(head, on: half..<Self.connections) == Self.connections - half)

        // Responsive while holding them all: a new connection is served at once.
        let started = ContinuousClock.now
        #expect(try await fixture.publicClient(timeout: .seconds(5)).get("/healthz").status == 200)
        let healthz = ContinuousClock.now - started
        let held = try await herd.openCount()
        let after = try Self.memory(of: pid)
        await herd.close()

        let residentPerConnection = (after.resident - before.resident) / Self.connections
        let heapPerConnection = (after.heap - before.heap) / Self.connections
        print(
            "idle connections: \(held) of \(Self.connections) held; VmRSS \(before.resident / 1024) → "
                + "\(after.resident / 1024) KiB (\(residentPerConnection) bytes per connection), VmData "
                + "\(before.heap / 1024) → \(after.heap / 1024) KiB (\(heapPerConnection) bytes per connection); "
                + "/healthz in \(healthz)")
        #expect(held == Self.connections)
        #expect(residentPerConnection <= Self.maxResidentBytesPerConnection)
        #expect(heapPerConnection <= Self.maxHeapBytesPerConnection)
        #expect(try await fixture.publicClient().get("/healthz").status == 200)
        #expect(await fixture.stop() == [0])
    }

    /// `VmRSS` (resident) and `VmData` (private data: heap and anonymous mappings) of `pid`, in bytes.
    static func memory(of pid: Int32) throws -> (resident: Int, heap: Int) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func kibibytes(_ field: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
                let value = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first,
                let count = Int(value)
            else { return 0 }
            return count * 1024
        }
        return (kibibytes("VmRSS"), kibibytes("VmData"))
    }
}
