import Glibc

/// Starts a dedicated POSIX thread: the serial owner of one SQLite connection. A plain thread rather than a
/// task, because SQLite calls block (fsync on commit, busy waits) and must not hold a Swift concurrency
/// thread, of which there are as many as cores.
enum OwnerThread {
    private final class Entry {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// - Parameter name: names the thread in errors.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(StoreError) {
        let entry = Unmanaged.passRetained(Entry(body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(
            &thread, nil,
            { argument in
                let entry = Unmanaged<Entry>.fromOpaque(argument!).takeRetainedValue()
                entry.body()
                return nil
            }, entry)
        guard code == 0 else {
            Unmanaged<Entry>.fromOpaque(entry).release()
            throw StoreError.unavailable("cannot start the \(name) thread (error \(code))")
        }
        pthread_detach(thread)
    }
}
