#if LIFECYCLE_TSAN
    #if canImport(Glibc)
        import Glibc
    #endif

    /// Only in `make test-tsan` builds (`-DLIFECYCLE_TSAN`): a `Mutex` with the API of
    /// `Synchronization.Mutex` on a `pthread_mutex_t`, which ThreadSanitizer intercepts. On Linux
    /// `Synchronization.Mutex` locks with futexes inside a module built without TSan, so TSan sees none of
    /// its happens-before edges and reports every access it guards as a race (two threads incrementing one
    /// Mutex-guarded counter 10,000 times each: the total is 20,000, and TSan reports a "Swift access race").
    /// This file is compiled into every module that uses `Mutex` (the other copies are symbolic links to
    /// this one), where the module's own type shadows the imported one; normal builds never see it.
    final class Mutex<Value>: @unchecked Sendable {
        private let lock: UnsafeMutablePointer<pthread_mutex_t>
        /// Out of line, so only the lock orders accesses to it (a stored `var` would add Swift's own
        /// exclusivity tracking, which TSan reports as an access race on a zero-sized `Value`).
        private let value: UnsafeMutablePointer<Value>

        init(_ initialValue: consuming sending Value) {
            value = UnsafeMutablePointer<Value>.allocate(capacity: 1)
            value.initialize(to: initialValue)
            lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(lock, nil)
        }

        deinit {
            pthread_mutex_destroy(lock)
            lock.deallocate()
            value.deinitialize(count: 1)
            value.deallocate()
        }

        func withLock<Result, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            return try body(&value.pointee)
        }
    }
#endif
