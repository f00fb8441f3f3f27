import CSQLite

/// What a connection's write-ahead-log hook is handed after each commit: the log's frame count, and a way to
/// checkpoint from inside the hook (as SQLite's own automatic checkpoint does,
/// https://www.sqlite.org/c3ref/wal_hook.html).
package struct SQLiteLogCommit {
    /// Frames in the write-ahead log after the commit.
    package let frames: Int
    fileprivate let handle: OpaquePointer?
    fileprivate let database: UnsafePointer<CChar>?

    /// A passive checkpoint on the committing connection: copies what no reader still needs, never waits.
    package func checkpointPassive() {
        _ = sqlite3_wal_checkpoint_v2(handle, database, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
}

/// The closure a connection's hook runs; retained by the connection while installed.
final class SQLiteLogHookBox {
    let body: (SQLiteLogCommit) -> Void
    init(_ body: @escaping (SQLiteLogCommit) -> Void) { self.body = body }
}

extension SQLiteConnection {
    /// Runs `hook` after every commit of this connection, in place of SQLite's automatic checkpoint (which
    /// installing a hook turns off, https://www.sqlite.org/c3ref/wal_autocheckpoint.html). It runs on the
    /// connection's owner thread, inside `COMMIT`.
    package func onLogCommit(_ hook: @escaping (SQLiteLogCommit) -> Void) {
        guard let handle else { return }
        let box = SQLiteLogHookBox(hook)
        logHook = box
        sqlite3_wal_hook(
            handle,
            { context, handle, database, frames in
                let box = Unmanaged<SQLiteLogHookBox>.fromOpaque(context!).takeUnretainedValue()
                box.body(SQLiteLogCommit(frames: Int(frames), handle: handle, database: database))
                return SQLITE_OK
            }, Unmanaged.passUnretained(box).toOpaque())
    }
}
