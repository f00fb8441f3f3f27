import Glibc
import HTTP1
import Synchronization

/// How handler tasks (on Swift concurrency) and `shutdown()` hand work to an event-loop thread: a queue behind a
/// mutex plus a self-pipe the loop watches in epoll, written once per batch.
final class LoopMailbox: Sendable {
    struct Completion: Sendable {
        let connectionID: UInt64
        let response: HTTPResponse
    }

    private struct State {
        var completions: [Completion] = []
        var wakePending = false
        var shutdownRequested = false
        /// Set when the loop exits and closes the pipe; later posts are dropped rather than written into a
        /// descriptor number that may have been reused.
        var closed = false
    }

    private let state = Mutex(State())
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() throws(HTTPServerError) {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw .socketFailed(operation: "pipe", errno: errno) }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    func complete(_ completion: Completion) {
        state.withLock { state in
            guard !state.closed else { return }
            state.completions.append(completion)
            if !state.wakePending {
                state.wakePending = true
                wake()
            }
        }
    }

    func requestShutdown() {
        state.withLock { state in
            guard !state.closed else { return }
            state.shutdownRequested = true
            state.wakePending = true
            wake()
        }
    }

    /// Called by the loop after the pipe became readable.
    func take() -> (completions: [Completion], shutdownRequested: Bool) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while scratch.withUnsafeMutableBytes({ read(readDescriptor, $0.baseAddress, $0.count) }) > 0 {}
        return state.withLock { state in
            let completions = state.completions
            state.completions = []
            state.wakePending = false
            return (completions, state.shutdownRequested)
        }
    }

    func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            _ = Glibc.close(readDescriptor)
            _ = Glibc.close(writeDescriptor)
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }
}
