import CSQLite

/// The one way this module opens a SQLite handle: the process-wide settings first (`sqlite3_config` is
/// refused once the library has initialized, so they must precede the first open), then `sqlite3_open_v2`,
/// closing the handle SQLite allocates even when the open fails.
package enum SQLiteLibrary {
    /// Memory statistics off (see `lifecycle_sqlite3_disable_memory_statistics`). The answer is ignored: after
    /// an initialization this process did elsewhere it is `SQLITE_MISUSE`, and the library works as before.
    private static let configured: Void = { _ = lifecycle_sqlite3_disable_memory_statistics() }()

    /// Opens `path` with `flags`; on failure the error carries SQLite's code and message, and no handle is left.
    package static func open(_ path: String, flags: Int32) throws(SQLiteError) -> OpaquePointer {
        _ = configured
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, connection: handle)
            sqlite3_close_v2(handle)
            throw error
        }
        return handle
    }
}
