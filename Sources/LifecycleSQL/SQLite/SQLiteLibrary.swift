import CSQLite

/// Process-wide SQLite settings, applied once before the first connection opens (`sqlite3_config` is
/// refused once the library has initialized).
package enum SQLiteLibrary {
    /// Memory statistics off: SQLite otherwise takes a process-wide mutex around every allocation to count it
    /// (`SQLITE_DEFAULT_MEMSTATUS`), and nothing here reads the counts. The answer is ignored: after an
    /// initialization this process did elsewhere it is `SQLITE_MISUSE`, and the library works as before.
    private static let configured: Void = { _ = lifecycle_sqlite3_disable_memory_statistics() }()

    /// Applies the settings, once; every `sqlite3_open_v2` in this module calls it first.
    package static func configure() { _ = configured }
}
