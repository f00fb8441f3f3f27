import CSQLite
import Glibc

extension SQLiteConnection {
    /// Copies this connection's database into a new file at `destination` with SQLite's online backup API
    /// (https://www.sqlite.org/backup.html): `sqlite3_backup_step(-1)` copies every page inside one read
    /// transaction, so the copy is the database as of one commit, while the writer of another connection or
    /// process goes on (in WAL mode a reader never blocks it). The destination is opened without WAL, so the
    /// copy is one self-contained file once this returns; it is not fsynced here (the caller renames it).
    package func backup(into destination: String, busyTimeoutMilliseconds: Int32) throws(SQLiteError) {
        let source = try openSource()
        let target: OpaquePointer
        do {
            target = try SQLiteLibrary.open(
                destination, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX)
        } catch {
            throw SQLiteError(code: error.code, message: "cannot create \(destination): \(error.message)")
        }
        defer { sqlite3_close_v2(target) }
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
            throw SQLiteError(code: sqlite3_errcode(target), connection: target)
        }
        var code = SQLITE_OK
        let deadline = busyTimeoutMilliseconds / 50 + 1
        var waits: Int32 = 0
        repeat {
            code = sqlite3_backup_step(backup, -1)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                waits += 1
                usleep(50_000)
            }
        } while (code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED) && waits < deadline
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finished == SQLITE_OK else {
            let failing = code == SQLITE_DONE ? finished : code
            throw SQLiteError(
                code: failing,
                message: "online backup into \(destination) failed: \(String(cString: sqlite3_errstr(failing)))")
        }
    }

    private func openSource() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "connection is closed") }
        return handle
    }
}
