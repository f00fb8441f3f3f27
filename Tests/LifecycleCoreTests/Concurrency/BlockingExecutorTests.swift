import Foundation
import LifecycleCore
import Synchronization
import Testing

@Suite("Blocking executor: bounded threads, FIFO, results and errors returned")
struct BlockingExecutorTests {
    struct Refused: Error, Equatable { var code: Int }

    /// Shared state the work items touch from the executor's threads.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func with<R>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    }

    @Test("a burst of blocking work never runs on more threads than the limit, and all of it finishes")
    func boundedThreads() async {
        let executor = BlockingExecutor(threadLimit: 3)
        let running = Shared((now: 0, peak: 0))
        let results = await withTaskGroup(of: Int.self) { group in
            for index in 0..<24 {
                group.addTask {
                    await executor.run {
                        running.with {
                            $0.now += 1
                            $0.peak = max($0.peak, $0.now)
                        }
                        usleep(5_000)  // a slow peer
                        running.with { $0.now -= 1 }
                        return index
                    }
                }
            }
            var all: [Int] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.sorted() == Array(0..<24))
        #expect(running.with { $0.peak } <= 3)
        #expect(executor.threadCount <= 3)
    }

    @Test("with one thread, work runs in the order it was submitted")
    func fifo() async {
        let executor = BlockingExecutor(threadLimit: 1)
        let order = Shared<[Int]>([])
        // Hold the only thread so the next submissions queue up behind it, in order.
        let gate = DispatchSemaphore(value: 0)
        let held = Task { await executor.run { gate.wait() } }
        while executor.threadCount < 1 || executor.queuedCount > 0 { await Task.yield() }
        var submitted: [Task<Void, Never>] = []
        for index in 0..<10 {
            submitted.append(Task { await executor.run { order.with { $0.append(index) } } })
            // Each submission is queued before the next one starts.
            while executor.queuedCount < index + 1 { await Task.yield() }
        }
        gate.signal()
        await held.value
        for task in submitted { await task.value }
        #expect(order.with { $0 } == Array(0..<10))
        #expect(executor.threadCount == 1)
    }

    @Test("a typed error thrown on the executor reaches the awaiting task")
    func typedError() async {
        let executor = BlockingExecutor(threadLimit: 2)
        await #expect(throws: Refused(code: 7)) {
            try await executor.run { () throws(Refused) -> Int in throw Refused(code: 7) }
        }
        let value = await executor.run { 41 + 1 }
        #expect(value == 42)
    }
}
