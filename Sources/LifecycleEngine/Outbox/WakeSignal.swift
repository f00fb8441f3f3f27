import Synchronization

/// Wakes a background loop early ("new work was committed") without losing a wake-up that arrives while the
/// loop is busy: a signal with no waiter is remembered until the next ``wait(timeout:)``. One waiter at a time.
package final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    package func notify() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when notified (or already notified), after `timeout`, or when the task is cancelled.
    package func wait(timeout: Duration) async {
        let generation: UInt64? = state.withLock { state in
            if state.pending {
                state.pending = false
                return nil
            }
            state.generation &+= 1
            return state.generation
        }
        guard let generation else { return }
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            expire(generation)
        }
        await withTaskCancellationHandler {
            await suspend(generation)
        } onCancel: {
            notify()
        }
        timer.cancel()
    }

    private func suspend(_ generation: UInt64) async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                // A notify or the timer may have fired between the two critical sections.
                if state.pending || state.generation != generation {
                    state.pending = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func expire(_ generation: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.generation == generation else { return nil }
            state.generation &+= 1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
