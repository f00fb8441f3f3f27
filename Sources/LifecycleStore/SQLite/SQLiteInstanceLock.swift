import Glibc

/// Who holds a SQLite store's files: every `serve` takes the shared side of an `flock(2)` on
/// `<database>.lock-serve` for as long as it runs, and `lifecycle restore` the exclusive side for as long as
/// it replaces the file. So a restore never replaces a database under a running service, and a service never
/// starts on a file being replaced; the kernel drops the lock with the process, however it ends
/// (https://man7.org/linux/man-pages/man2/flock.2.html). Several `serve` processes on one file share it.
public enum SQLiteInstanceLock {
    static let name = "serve"

    /// The lock file next to `database`.
    public static func path(database: String) -> String {
        SQLiteExclusiveLock.path(database: database, name: name)
    }

    /// `serve`: the shared side, without waiting; the descriptor that holds it (keep it open), or nil while a
    /// restore holds the exclusive side.
    public static func holdShared(database: String) throws(StoreError) -> Int32? {
        try take(database: database, operation: LOCK_SH)
    }

    /// `restore`: the exclusive side, without waiting; nil while any `serve` holds the shared side.
    public static func holdExclusive(database: String) throws(StoreError) -> Int32? {
        try take(database: database, operation: LOCK_EX)
    }

    public static func release(_ descriptor: Int32) {
        close(descriptor)
    }

    private static func take(database: String, operation: Int32) throws(StoreError) -> Int32? {
        try SQLiteExclusiveLock.tryLock(file: path(database: database), operation: operation)
    }
}
