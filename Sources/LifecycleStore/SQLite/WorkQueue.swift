import Dispatch
import Synchronization

/// Jobs waiting for the thread(s) that own a connection. Producers are async callers; consumers are
/// ``ConnectionOwner`` threads, which block in ``take(upTo:)`` (they are dedicated threads, not the Swift
/// concurrency pool, so blocking there is their job).
final class WorkQueue<Job: Sendable>: Sendable {
    private struct State {
        var jobs: [Job] = []
        var head = 0
        var isClosed = false

        var count: Int { jobs.count - head }
    }

    private let state = Mutex(State())
    /// Signalled once per enqueued job and once per consumer on close; a consumer that wakes to an empty
    /// queue simply waits again.
    private let wakeUp = DispatchSemaphore(value: 0)

    /// Adds a job; false once the queue is closed (the job was not taken).
    func enqueue(_ job: Job) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { wakeUp.signal() }
        return accepted
    }

    /// Waits for work and returns everything queued, up to `limit` jobs, in arrival order. Returns nil once
    /// the queue is closed and drained: jobs accepted before closing are still handed out.
    func take(upTo limit: Int) -> [Job]? {
        while true {
            wakeUp.wait()
            let batch = state.withLock { state -> [Job]? in
                let available = state.count
                if available == 0 { return state.isClosed ? nil : [] }
                let taken = min(available, limit)
                let batch = Array(state.jobs[state.head..<state.head + taken])
                state.head += taken
                if state.head == state.jobs.count {
                    state.jobs.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return batch
            }
            guard let batch else {
                // Pass the wake-up on, so every other consumer also sees the close.
                wakeUp.signal()
                return nil
            }
            if !batch.isEmpty { return batch }
        }
    }

    /// Refuses further jobs and wakes the consumers so they drain what is left and stop.
    func close() {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        if wasOpen { wakeUp.signal() }
    }

    var count: Int { state.withLock { $0.count } }
}
