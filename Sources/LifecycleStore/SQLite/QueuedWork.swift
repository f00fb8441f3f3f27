import Synchronization

/// One `write` call waiting for the writer thread, with its type erased so callers of any result type share
/// one queue. ``run`` executes the body (inside its savepoint) and keeps the outcome; ``finish`` delivers it
/// once the transaction's fate is known.
struct QueuedWrite: Sendable {
    /// Runs the body; true when it returned normally, false when it threw (its savepoint is rolled back).
    let run: @Sendable (any StoreWriter) -> Bool
    /// Resumes the caller: with `commitError` when the transaction failed, otherwise with the body's outcome.
    let finish: @Sendable (_ commitError: StoreError?) -> Void

    init<T: Sendable>(
        body: @escaping @Sendable (any StoreWriter) throws -> T, continuation: CheckedContinuation<T, any Error>
    ) {
        let outcome = WriteOutcome<T>()
        run = { writer in
            let result = Result { try body(writer) }
            outcome.result.withLock { $0 = result }
            if case .success = result { return true }
            return false
        }
        finish = { commitError in
            if let commitError {
                continuation.resume(throwing: commitError)
                return
            }
            let result = outcome.result.withLock { $0 } ?? .failure(StoreError.unavailable("write did not run"))
            continuation.resume(with: result)
        }
    }
}

/// Where a body's result waits between running and the commit.
private final class WriteOutcome<T: Sendable>: Sendable {
    let result = Mutex<Result<T, any Error>?>(nil)
}

/// One `read` call waiting for a reader thread.
struct QueuedRead: Sendable {
    /// Runs the body inside a read transaction and resumes the caller.
    let run: @Sendable (any StoreReader) -> Void
    /// Resumes the caller when no snapshot could be taken.
    let fail: @Sendable (StoreError) -> Void

    init<T: Sendable>(
        body: @escaping @Sendable (any StoreReader) throws -> T, continuation: CheckedContinuation<T, any Error>
    ) {
        run = { reader in continuation.resume(with: Result { try body(reader) }) }
        fail = { error in continuation.resume(throwing: error) }
    }
}
