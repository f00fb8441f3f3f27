import Dispatch

/// Calls async code from a plain thread and waits for it. Only for the reconciler's merge thread, which is
/// not one of Swift concurrency's threads: blocking there cannot starve the cooperative pool.
enum BlockingBridge {
    final class Box<T>: @unchecked Sendable {
        // Written once by the task before the semaphore is signalled, read after the wait: ordered by it.
        var result: Result<T, any Error>?
    }

    static func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let box = Box<T>()
        Task {
            do {
                box.result = .success(try await operation())
            } catch {
                box.result = .failure(error)
            }
            semaphore.signal()
        }
        semaphore.wait()
        return try box.result!.get()
    }
}
