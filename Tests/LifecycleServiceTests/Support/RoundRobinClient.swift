import Dispatch
import Foundation
import HTTP1
import HTTPServer
import Synchronization

/// The test's own load balancer in front of several `serve` instances: request `i` goes to instance
/// `i % count`; a refused connection marks that instance down (as a balancer's health check would), and any
/// failure is retried on the next instance that is up, so a notification is acknowledged by someone unless
/// every instance is gone. Runs on threads of its own with blocking sockets, so thousands of requests do not
/// occupy the test process's few concurrency threads.
final class RoundRobinClient: Sendable {
    /// What a run did.
    struct Outcome: Sendable {
        /// `acknowledged[i]`: some instance answered 200 to notification `i`.
        var acknowledged: [Bool]
        /// Second copies (sent to the other instance) that were answered 200 as well.
        var duplicateAcknowledgements: Int
        /// Requests that were sent again to another instance after a failure.
        var failovers: Int
    }

    let ports: [Int]
    /// Attempts per notification before giving up on it.
    let maximumAttempts: Int
    private let down: Mutex<[Bool]>
    private let next = Atomic<Int>(0)
    private let acknowledged: Mutex<[Bool]>
    private let acknowledgedTotal = Atomic<Int>(0)
    private let failovers = Atomic<Int>(0)
    private let duplicateAcknowledgements = Atomic<Int>(0)

    init(ports: [Int], maximumAttempts: Int = 50) {
        self.ports = ports
        self.maximumAttempts = maximumAttempts
        down = Mutex(Array(repeating: false, count: ports.count))
        acknowledged = Mutex([])
    }

    /// Notifications acknowledged so far (for deciding when to kill an instance mid-run).
    var acknowledgedCount: Int { acknowledgedTotal.load(ordering: .relaxed) }

    /// Sends every body with `workers` concurrent senders. For indices where `duplicate(index)` holds, the
    /// same body also goes to the next instance at the same time, so the two race to store it.
    func run(bodies: [[UInt8]], workers: Int, duplicate: @escaping @Sendable (Int) -> Bool) async -> Outcome {
        acknowledged.withLock { $0 = Array(repeating: false, count: bodies.count) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for _ in 0..<workers {
                group.enter()
                Thread { [self] in
                    work(bodies: bodies, duplicate: duplicate)
                    group.leave()
                }.start()
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
        return Outcome(
            acknowledged: acknowledged.withLock { $0 },
            duplicateAcknowledgements: duplicateAcknowledgements.load(ordering: .relaxed),
            failovers: failovers.load(ordering: .relaxed))
    }

    private func work(bodies: [[UInt8]], duplicate: @Sendable (Int) -> Bool) {
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < bodies.count else { return }
            let primary = index % ports.count
            let copy = DispatchGroup()
            if duplicate(index) {
                let other = (primary + 1) % ports.count
                DispatchQueue.global().async(group: copy) { [self] in
                    if !isDown(other), sendOnce(bodies[index], to: other) == 200 {
                        duplicateAcknowledgements.add(1, ordering: .relaxed)
                    }
                }
            }
            if send(bodies[index], preferring: primary) {
                acknowledged.withLock { $0[index] = true }
                acknowledgedTotal.add(1, ordering: .relaxed)
            }
            copy.wait()
        }
    }

    /// Sends until some instance answers 200; false when every attempt failed.
    private func send(_ body: [UInt8], preferring preferred: Int) -> Bool {
        var target = preferred
        for attempt in 0..<maximumAttempts {
            if isDown(target),
                let up = (0..<ports.count).map({ (target + $0) % ports.count }).first(where: { !isDown($0) })
            {
                target = up
            }
            if sendOnce(body, to: target) == 200 { return true }
            failovers.add(1, ordering: .relaxed)
            target = (target + 1) % ports.count
            if attempt > 0 { Thread.sleep(forTimeInterval: 0.02) }
        }
        return false
    }

    /// One exchange; the status, or nil when the exchange failed (a refused connection marks the instance down).
    private func sendOnce(_ body: [UInt8], to instance: Int) -> Int? {
        let client = HTTPClient(host: "127.0.0.1", port: ports[instance], timeout: .seconds(10))
        do {
            let response = try client.sendBlocking(
                HTTPClientRequest(
                    method: "POST", target: "/apple/notifications", headers: ["Content-Type": "application/json"],
                    body: body))
            return response.status
        } catch {
            if case .connectFailed = error { down.withLock { $0[instance] = true } }
            return nil
        }
    }

    private func isDown(_ instance: Int) -> Bool { down.withLock { $0[instance] } }
}
