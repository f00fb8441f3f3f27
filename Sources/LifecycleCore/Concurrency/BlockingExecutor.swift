import Foundation
import Synchronization

/// The one way blocking work leaves Swift concurrency's cooperative pool: a fixed-size pool of threads fed
/// from one FIFO queue (the shape of SwiftNIO's `NIOThreadPool`).
///
/// Sockets of the HTTP client (webhooks, erasure webhooks, Apple, key sets), SQLite and libpq calls against
/// apps' databases, the endpoint check and the reconciler's merge all block a thread; on the cooperative pool
/// (one thread per core) a few slow peers would stall every task of the process. A thread per call bounds
/// nothing, so a burst of slow receivers would start hundreds. Here at most ``threadLimit`` threads exist,
/// started on demand and kept; work beyond that waits in the queue, in order.
///
/// Work must not wait for other work submitted to the same executor (it could wait for a thread it holds).
/// The reconciler's merge waits for store reads, which run on the store's own threads, never here.
public final class BlockingExecutor: Sendable {
    /// Shared by the whole process: enough threads for many slow peers at once on a small machine.
    public static let shared = BlockingExecutor(threadLimit: 32)

    public let threadLimit: Int
    private let state = Mutex(State())
    /// Counts queued items: a worker takes one item per `wait()`.
    private let pending = DispatchSemaphore(value: 0)

    private struct State {
        var queue: [@Sendable () -> Void] = []
        var head = 0
        var threads = 0
        var idle = 0
    }

    public init(threadLimit: Int) {
        precondition(threadLimit > 0, "a blocking executor needs at least one thread")
        self.threadLimit = threadLimit
    }

    /// Runs `work` on one of the executor's threads and returns its result to the awaiting task.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: work()) }
        }
    }

    /// ``run(_:)`` for work that throws a typed error.
    public func run<T: Sendable, E: Error>(
        _ work: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let result: Result<T, E> = await run { Result { () throws(E) -> T in try work() } }
        return try result.get()
    }

    /// Threads started so far (never more than ``threadLimit``).
    public var threadCount: Int { state.withLock { $0.threads } }

    /// Work submitted and not yet taken by a thread.
    public var queuedCount: Int { state.withLock { $0.queue.count - $0.head } }

    private func submit(_ item: @escaping @Sendable () -> Void) {
        let startThread = state.withLock { state -> Bool in
            state.queue.append(item)
            guard state.idle == 0, state.threads < threadLimit else {
                state.idle = max(0, state.idle - 1)
                return false
            }
            state.threads += 1
            return true
        }
        pending.signal()
        if startThread {
            let thread = Thread { [self] in work() }
            thread.name = "lifecycle-blocking"
            thread.start()
        }
    }

    private func work() {
        while true {
            pending.wait()
            let item = state.withLock { state -> @Sendable () -> Void in
                let item = state.queue[state.head]
                state.head += 1
                if state.head > 64, state.head * 2 > state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                return item
            }
            item()
            state.withLock { $0.idle += 1 }
        }
    }
}
