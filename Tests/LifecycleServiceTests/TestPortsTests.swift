import Foundation
import Glibc
import TestSupport
import Testing

/// The ports tests give `serve` processes stay free until they bind them.
@Suite("Ports for serve processes")
struct TestPortsTests {
    /// The port handed out is not re-probed afterwards: nothing holds it between the hand-out and the bind of the
    /// `serve` it is for, so a process outside the suite may take it meanwhile, and a second probe only measures
    /// that race. What the walk promises is that a port something is bound to when it is reached is skipped; the
    /// test binds the walk's next port itself and asks for another.
    @Test("ports come from below the ephemeral range, differ from each other, and skip one a socket holds")
    func belowEphemeralRange() async throws {
        let text = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let low = try #require(text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        let first = try TestPorts.unused()
        let second = try TestPorts.unused()
        #expect(first != second)
        for port in [first, second] {
            #expect(TestPorts.pool().contains(port), "\(port)")
            #expect(port < low || low - TestPorts.poolSize < 1_024, "\(port) is an ephemeral port")
        }

        // The port after one just handed out is where the walk goes next (other tests of this process may walk
        // past it meanwhile, which moves the walk further and leaves the expectation true). Held here, bound and
        // not listening, it must not be handed out.
        var held: (port: Int, descriptor: Int32)?
        for _ in 0..<20 where held == nil {
            let previous = try TestPorts.unused()
            // Reserved first: another test process may hold it, about to bind it for its serve.
            guard previous + 1 < TestPorts.pool().upperBound, TestPorts.reserve(previous + 1) else { continue }
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            try #require(descriptor >= 0)
            if Loopback.bind(descriptor, port: previous + 1) {
                held = (previous + 1, descriptor)
            } else {
                close(descriptor)
            }
        }
        let (port, descriptor) = try #require(held, "no port after a handed-out one could be bound in 20 tries")
        defer { close(descriptor) }
        #expect(!TestPorts.isFree(port), "a port a socket holds is not free")
        #expect(try TestPorts.unused() != port, "the port a socket holds was handed out")

        // Two consecutive ports (dev-setup's public and admin listeners): neither is handed out again.
        let pair = try TestPorts.unused(consecutive: 2)
        let after = try TestPorts.unused()
        #expect(after != pair && after != pair + 1, "\(after) was handed out again after the pair at \(pair)")
    }

    /// Two test processes walk the same range: a port one handed out must not be handed out by the other before
    /// its `serve` binds it. Another process (`flock(1)`) holding a port's reservation makes it unavailable here.
    @Test("a port another process reserved is not handed out, and one this process reserved stays its own")
    func reservedAcrossProcesses() async throws {
        let port = try TestPorts.unused()
        #expect(TestPorts.reserve(port), "a port this process holds is still its own")
        let directory = FileManager.default.temporaryDirectory.path + "/lifecycle-test-ports"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A port nobody holds now: its lock taken and let go again through a descriptor of this test's own.
        let other = try #require(
            TestPorts.pool().first { candidate in
                guard candidate != port, candidate % 7 == 3, TestPorts.isFree(candidate) else { return false }
                let descriptor = open("\(directory)/\(candidate)", O_CREAT | O_RDONLY | O_CLOEXEC, 0o666)
                guard descriptor >= 0 else { return false }
                defer { close(descriptor) }
                return flock(descriptor, LOCK_EX | LOCK_NB) == 0
            })
        let ready = directory + "/\(other).held-\(UUID().uuidString)"
        defer { unlink(ready) }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-w", "10", "\(directory)/\(other)", "sh", "-c", "touch \"$0\"; exec sleep 30", ready]
        try holder.run()
        defer { holder.terminate() }
        // Only once the other process holds the lock: a reserve before would take it here.
        let locked = await eventually(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: ready) }
        try #require(locked, "flock(1) did not take the lock")
        #expect(!TestPorts.reserve(other), "the port another process locked was reserved here")
    }
}
