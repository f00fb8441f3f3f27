import CSQLite
import Synchronization

/// A flag another thread raises to stop the long statements of the connections watching it
/// (``ExternalSQLiteDatabase/stop(when:)``): each checks it every few thousand virtual-machine steps and ends
/// its statement with `SQLITE_INTERRUPT`, even one still sorting before its first row.
public final class SQLiteInterrupt: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public var raised: Bool { flag.load(ordering: .relaxed) }

    public func raise() { flag.store(true, ordering: .relaxed) }
}

extension ExternalSQLiteDatabase {
    /// Watches `interrupt` from now on: SQLite's progress handler, run on the thread stepping the statement,
    /// so nothing reaches across threads but the flag. The connection keeps `interrupt` alive while it may call.
    public func stop(when interrupt: SQLiteInterrupt) {
        guard let handle else { return }
        watched = interrupt
        sqlite3_progress_handler(
            handle, 10_000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<SQLiteInterrupt>.fromOpaque(context).takeUnretainedValue().raised ? 1 : 0
            }, Unmanaged.passUnretained(interrupt).toOpaque())
    }
}
