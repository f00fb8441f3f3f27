import Dispatch
import LifecycleStore
import Synchronization

/// Holds the writer inside one write body, so the test can queue more writes behind it and know exactly
/// which batch they land in.
final class WriterGate: Sendable {
    private let held = Atomic<Bool>(false)
    private let release = DispatchSemaphore(value: 0)

    var isHeld: Bool { held.load(ordering: .acquiring) }

    /// Called from inside a write body: blocks the writer thread until ``open()``.
    func hold() {
        held.store(true, ordering: .releasing)
        release.wait()
    }

    func open() {
        release.signal()
    }
}

struct TimedOut: Error {}

/// Polls `condition` every millisecond for up to `seconds`.
func waitUntil(seconds: Int = 10, _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(seconds))
    while !condition() {
        guard clock.now < deadline else { throw TimedOut() }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// Runs one held write, queues `bodies` behind it, then lets the writer go; returns each body's outcome in
/// order. All of `bodies` are queued before the writer takes its next batch.
func queueBehindHeldWriter<T: Sendable>(
    _ store: any Store, _ bodies: [@Sendable (any StoreWriter) throws -> T]
) async throws -> [Result<T, any Error>] {
    let gate = WriterGate()
    return try await withThrowingTaskGroup(of: (Int, Result<T, any Error>)?.self) { group in
        group.addTask {
            try await store.write { _ in gate.hold() }
            return nil
        }
        try await waitUntil { gate.isHeld }
        for (index, body) in bodies.enumerated() {
            group.addTask { (index, await Result { try await store.write(body) }) }
        }
        try await waitUntil { store.statistics.queuedWrites == bodies.count }
        gate.open()
        var outcomes: [Int: Result<T, any Error>] = [:]
        for try await case (let index, let outcome)? in group { outcomes[index] = outcome }
        return bodies.indices.map { outcomes[$0]! }
    }
}
