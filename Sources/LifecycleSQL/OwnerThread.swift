import CShims
import Glibc

/// Starts a dedicated POSIX thread: the serial owner of one database connection. A plain thread rather than a
/// task, because SQLite calls block (fsync on commit, busy waits) and must not hold a Swift concurrency
/// thread, of which there are as many as cores.
package enum OwnerThread {
    /// `pthread_create` refused: the thread's name and the error number it returned.
    package struct StartFailure: Error, Sendable, CustomStringConvertible {
        package var name: String
        package var code: Int32

        package var description: String { "cannot start the \(name) thread (error \(code))" }
    }

    private final class Entry {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// - Parameter name: names the thread (for `top -H`, `perf`, `/proc/<pid>/task/*/comm`; Linux keeps 15
    ///   bytes) and it in errors. Threads otherwise keep the name of the thread that started them.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(StartFailure) {
        let entry = Unmanaged.passRetained(
            Entry {
                _ = shim_set_thread_name(name)
                body()
            }
        ).toOpaque()
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
            throw StartFailure(name: name, code: code)
        }
        pthread_detach(thread)
    }
}
