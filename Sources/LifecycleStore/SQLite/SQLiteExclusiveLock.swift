import Glibc

/// ``Store/withExclusiveLock(named:_:)`` for SQLite: an advisory `flock(2)` on a small file next to the
/// database (`<database>.lock-<name>`). A SQLite file is only ever shared by processes on one machine, so a
/// file lock reaches every one of them; the kernel drops it when the process exits, however it exits, so no
/// expiry is needed; and it needs no schema change. Locks taken through two `open` calls exclude each other
/// even inside one process (https://man7.org/linux/man-pages/man2/flock.2.html), so two stores opened on one
/// file in one process also exclude each other. The lock file itself stays, like SQLite's `-wal` file.
enum SQLiteExclusiveLock {
    /// The lock file for `name`: bytes outside `[A-Za-z0-9_-]` are written as `%XX`, so any name maps to
    /// one file name and no name can climb out of the directory.
    static func path(database: String, name: String) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return database + ".lock-" + String(decoding: encoded, as: UTF8.self)
    }

    /// How often ``SQLiteStore/withExclusiveLock(named:_:)`` tries before it reports the lock held, and the pause
    /// between tries (about one second in all). A process that starts a child (`fork`, then `exec`) copies every
    /// descriptor into it, `O_CLOEXEC` ones included until the `exec`, and a `flock` belongs to the open file
    /// description, not the descriptor: for that moment the child holds the lock too, and a holder that has just
    /// closed its descriptor has not released it yet. A real holder (a report being written, a key rotation)
    /// holds for longer than that, so it is still found held.
    static let attempts = 10
    static let retryDelay: Duration = .milliseconds(100)

    /// Takes the lock without waiting; the descriptor holding it, or nil when another holder has it.
    static func tryAcquire(database: String, name: String) throws(StoreError) -> Int32? {
        try tryLock(file: path(database: database, name: name), operation: LOCK_EX)
    }

    /// `flock(file, operation | LOCK_NB)` on the file (created 0600 when missing): the descriptor holding the
    /// lock, or nil when a conflicting holder has it.
    static func tryLock(file: String, operation: Int32) throws(StoreError) -> Int32? {
        let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.unavailable("cannot open the lock file \(file) (errno \(errno))")
        }
        if flock(descriptor, operation | LOCK_NB) == 0 { return descriptor }
        let code = errno
        close(descriptor)
        guard code == EWOULDBLOCK else {
            throw StoreError.unavailable("cannot lock \(file) (errno \(code))")
        }
        return nil
    }

    /// Closing the descriptor releases the lock.
    static func release(_ descriptor: Int32) {
        close(descriptor)
    }
}

extension SQLiteStore {
    public func withExclusiveLock<T: Sendable>(
        named name: String, _ body: @Sendable () async throws -> T
    ) async throws -> T? {
        var attempt = 1
        var acquired = try SQLiteExclusiveLock.tryAcquire(database: path, name: name)
        while acquired == nil, attempt < SQLiteExclusiveLock.attempts {
            try? await Task.sleep(for: SQLiteExclusiveLock.retryDelay)
            attempt += 1
            acquired = try SQLiteExclusiveLock.tryAcquire(database: path, name: name)
        }
        guard let descriptor = acquired else { return nil }
        defer { SQLiteExclusiveLock.release(descriptor) }
        return try await body()
    }
}
