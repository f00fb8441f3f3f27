import Foundation
import Synchronization

/// The exit of a child `Process`, awaited without a thread of its own and without spinning.
///
/// `Process.waitUntilExit()` in swift-corelibs-foundation runs the calling thread's run loop until the child
/// is gone; on a thread whose run loop has no sources each turn returns at once, so every waiting thread burns
/// a whole core for as long as the child runs (a `sleep 2` waited for that way costs 2 s of CPU). With dozens
/// of `lifecycle` processes waited for at once in the parallel suite, that spinning took most of the two
/// cores. The termination handler, called from Foundation's SIGCHLD source, costs nothing while it waits.
public final class ProcessExit: Sendable {
    private enum State {
        case running([CheckedContinuation<Int32, Never>])
        case exited(Int32)
    }

    private let state = Mutex<State>(.running([]))

    /// Installs the termination handler on `process` and starts it. The handler must be in place before the
    /// start: one installed after the child has already exited is never called.
    public static func start(_ process: Process) throws -> ProcessExit {
        let exit = ProcessExit()
        process.terminationHandler = { finished in exit.finish(finished.terminationStatus) }
        try process.run()
        return exit
    }

    private init() {}

    /// The child's termination status (its exit status, or the signal that ended it), once it has exited.
    public func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status: Int32? = state.withLock { state in
                switch state {
                case .exited(let status):
                    return status
                case .running(var waiting):
                    waiting.append(continuation)
                    state = .running(waiting)
                    return nil
                }
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// True once the child has exited and been reaped.
    public var hasExited: Bool {
        state.withLock { state in
            if case .exited = state { return true }
            return false
        }
    }

    private func finish(_ status: Int32) {
        let waiting: [CheckedContinuation<Int32, Never>] = state.withLock { state in
            guard case .running(let waiting) = state else { return [] }
            state = .exited(status)
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: status) }
    }
}
