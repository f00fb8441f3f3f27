import CSQLite
import Synchronization

/// A flag another thread raises to stop the long queries of the connections watching it: an SQLite
/// connection checks it every few thousand virtual-machine steps (``ExternalSQLiteDatabase/stop(when:)``) and
/// ends its statement with `SQLITE_INTERRUPT`, even one still sorting before its first row; a PostgreSQL
/// connection, blocked waiting for the server, is sent a cancel request when the flag is raised
/// (``ExternalPostgresDatabase/stop(when:)``).
public final class QueryInterrupt: Sendable {
    private let flag = Atomic<Bool>(false)
    private let actions = Mutex<(next: Int, waiting: [Int: @Sendable () -> Void])>((0, [:]))

    public init() {}

    public var raised: Bool { flag.load(ordering: .relaxed) }

    /// Raises the flag and runs every action registered and not forgotten, each once. An action must not
    /// block: it runs on the raising thread (serve's shutdown).
    public func raise() {
        flag.store(true, ordering: .relaxed)
        let waiting = actions.withLock { state in
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for action in waiting { action() }
    }

    /// Runs `action` when the flag is raised (at once when it already is); the token forgets it.
    func whenRaised(_ action: @escaping @Sendable () -> Void) -> Int {
        actions.withLock { state in
            state.next += 1
            if raised { action() } else { state.waiting[state.next] = action }
            return state.next
        }
    }

    func forget(_ token: Int) {
        _ = actions.withLock { $0.waiting.removeValue(forKey: token) }
    }
}

extension ExternalSQLiteDatabase {
    /// Watches `interrupt` from now on: SQLite's progress handler, run on the thread stepping the statement,
    /// so nothing reaches across threads but the flag. The connection keeps `interrupt` alive while it may call.
    public func stop(when interrupt: QueryInterrupt) {
        guard let handle else { return }
        watched = interrupt
        sqlite3_progress_handler(
            handle, 10_000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<QueryInterrupt>.fromOpaque(context).takeUnretainedValue().raised ? 1 : 0
            }, Unmanaged.passUnretained(interrupt).toOpaque())
    }
}
