import Foundation
import Glibc
import Synchronization
import TestSupport

/// TCP ports on 127.0.0.1 for a process a test starts later (`serve`'s listeners), which must still be free
/// when that process binds them.
///
/// A port from `bind(0)` is one of the kernel's ephemeral ports (`/proc/sys/net/ipv4/ip_local_port_range`),
/// which every outgoing connection of the suite draws from too: the idle-connection test alone opens 10,000.
/// Between the probe and `serve`'s bind, a client socket could take it and `serve` exited 2, "address in use".
/// So the ports come from the range just below the ephemeral one, which neither `bind(0)` nor `connect`
/// hands out; each test process walks it from a random start (the two-instance test runs in a process of its
/// own beside the suite), and a port something holds is skipped. A port handed out is reserved across test
/// processes until this one exits (``reserve(_:)``): another process probing it before `serve` binds it would
/// otherwise find it free and hand it out too.
enum TestPorts {
    /// Ports handed out per process before the walk wraps around.
    static let poolSize = 10_000

    private static let state = Mutex<(pool: Range<Int>, next: Int)?>(nil)
    /// The locked files of the ports this process reserved, by port, open until it exits.
    private static let reservations = Mutex<[Int: Int32]>([:])

    /// A port nothing listens on or is bound to now, not handed out before by this process (until the pool
    /// wraps around).
    static func unused() throws -> Int {
        try unused(consecutive: 1)
    }

    /// The first of `count` consecutive ports, each as ``unused()`` hands one out, the walk moved past all of
    /// them (`dev-setup --port P` puts the admin listener on P+1).
    static func unused(consecutive count: Int) throws -> Int {
        try state.withLock { state in
            if state == nil {
                let pool = Self.pool()
                state = (pool, Int.random(in: pool))
            }
            guard let (pool, start) = state else { throw Unavailable() }
            var next = start
            defer { state = (pool, next) }
            for _ in 0..<pool.count {
                let first = next
                next = next + 1 == pool.upperBound ? pool.lowerBound : next + 1
                let ports = first..<(first + count)
                guard ports.upperBound <= pool.upperBound, ports.allSatisfy({ reserve($0) && isFree($0) }) else {
                    continue
                }
                next = ports.upperBound == pool.upperBound ? pool.lowerBound : ports.upperBound
                return first
            }
            throw Unavailable()
        }
    }

    /// Takes `port` for this process: an exclusive `flock` on `<tmp>/lifecycle-test-ports/<port>`, held open until
    /// the process exits (the kernel releases it however it exits). False only when another live process holds
    /// it; true again for a port this process holds, and true without a reservation when the file cannot be
    /// opened (a directory another user made), leaving the bind probe to decide.
    static func reserve(_ port: Int) -> Bool {
        reservations.withLock { reservations in
            if reservations[port] != nil { return true }
            let directory = FileManager.default.temporaryDirectory.path + "/lifecycle-test-ports"
            _ = mkdir(directory, 0o777)
            let descriptor = open("\(directory)/\(port)", O_CREAT | O_RDONLY | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else { return true }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                _ = close(descriptor)
                return false
            }
            reservations[port] = descriptor
            return true
        }
    }

    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "no free TCP port below the ephemeral range on 127.0.0.1" }
    }

    /// The `poolSize` ports below the ephemeral range, or, when the range starts too low for that, the ports
    /// above it.
    static func pool() -> Range<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let (low, high) = bounds.count == 2 ? (bounds[0], bounds[1]) : (32_768, 60_999)
        if low - poolSize >= 1_024 { return (low - poolSize)..<low }
        return (high + 1)..<min(65_536, high + 1 + poolSize)
    }

    /// True when a socket can bind 127.0.0.1:`port` without `SO_REUSEADDR`: nothing is bound to it, listening
    /// or connected.
    static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { _ = close(descriptor) }
        return Loopback.bind(descriptor, port: port)
    }
}
