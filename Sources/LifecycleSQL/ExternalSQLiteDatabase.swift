import CSQLite
import CShims
import Glibc
import LifecycleCore

/// An application's own SQLite database, opened only to erase one user's rows (an erasure job's `sqlite`
/// target, DESIGN.md §7). Not the service's store: no migrations, no pragmas beyond a busy timeout, and the
/// file must already exist.
///
/// Values are bound by name (`:sub`, https://www.sqlite.org/c3ref/bind_parameter_index.html), never
/// interpolated, so the configured statements stay constant text and a `sub` cannot change their meaning.
/// Errors carry SQLite's message and a stable code, never a bound value.
///
/// Use it from one thread at a time: open, run, close. It is not `Sendable`.
public final class ExternalSQLiteDatabase {
    /// Why an operation failed, as a stable machine code (`sqlite_open`, `sqlite_prepare`, `sqlite_step`,
    /// `sqlite_busy`, `sqlite_parameter`) plus SQLite's own message, for the step's error code and the log.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var code: FailureCode
        public var message: String
        /// True when a later attempt may succeed: a lock held elsewhere (`SQLITE_BUSY`/`SQLITE_LOCKED`) or a
        /// file that could not be opened.
        public var isTransient: Bool

        public var description: String { "\(code): \(message)" }
    }

    /// Internal for the row cursor (`ExternalSQLiteDatabase+Rows.swift`).
    var handle: OpaquePointer?
    /// The flag the progress handler reads (``stop(when:)``), held as long as the connection.
    var watched: QueryInterrupt?

    /// Opens an existing file read-write; with `create`, creates it when missing (fixtures and tools only: an
    /// erasure target must never create the database it is meant to erase from).
    /// With `readOnly`, the file is opened read-only (the reconciler reads the app's records, never writes).
    /// With `secureDelete`, the connection sets `secure_delete` (erased rows and freed pages are overwritten
    /// with zeros, https://www.sqlite.org/pragma.html#pragma_secure_delete) and `journal_size_limit = 0` (a
    /// persistent rollback journal is truncated after each transaction instead of keeping old pages).
    public init(
        path: String, busyTimeoutMilliseconds: Int32, create: Bool = false, readOnly: Bool = false,
        secureDelete: Bool = false
    ) throws(Failure) {
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        let flags = access | SQLITE_OPEN_NOMUTEX | (create && !readOnly ? SQLITE_OPEN_CREATE : 0)
        do {
            handle = try SQLiteLibrary.open(path, flags: flags)
        } catch {
            // A file that is missing or unreadable now (a volume not mounted yet, a restore in progress) may
            // be back on a later attempt.
            throw Failure(code: .sqliteOpen, message: error.message, isTransient: true)
        }
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        if secureDelete {
            do {
                try run("PRAGMA secure_delete = ON", parameters: [:])
                // The statement journal of the erasing statements holds the rows' old pages; in memory it
                // never reaches a temporary file's disk blocks (https://www.sqlite.org/tempfiles.html §2.6).
                try run("PRAGMA temp_store = MEMORY", parameters: [:])
                try run("PRAGMA journal_size_limit = 0", parameters: [:])
            } catch {
                close()
                throw error
            }
        }
    }

    private let busyTimeoutMilliseconds: Int32

    /// After erasing: leaves none of the erased rows' old pages in the files beside the database. In WAL mode
    /// the log still holds the pages as they were before the statements (and the main file too, until a
    /// checkpoint), so `wal_checkpoint(TRUNCATE)` copies every frame into the main file and truncates the log
    /// to zero bytes. It must wait for the app's readers to leave the log; each attempt waits
    /// `busyMilliseconds` (the app's writers wait meanwhile), then pauses `pauseMilliseconds`.
    ///
    /// - Returns: what was done, for the step's evidence.
    /// - Throws: `sqlite_wal_busy` (transient) when the app's readers kept the log busy on every attempt.
    public func removeRemnants(
        busyMilliseconds: Int32 = 100, attempts: Int = 20, pauseMilliseconds: UInt32 = 200
    ) throws(Failure) -> String {
        var mode = ""
        try run("PRAGMA journal_mode", parameters: [:]) { statement in
            mode = sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
        }
        guard mode.lowercased() == "wal" else { return "secure_delete, journal_mode=\(mode.lowercased())" }
        sqlite3_busy_timeout(handle, busyMilliseconds)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        for attempt in 1...max(1, attempts) {
            var busy: Int64 = 1
            try run("PRAGMA wal_checkpoint(TRUNCATE)", parameters: [:]) { busy = sqlite3_column_int64($0, 0) }
            if busy == 0 { return "secure_delete, wal_checkpoint(TRUNCATE)" }
            if attempt < attempts { usleep(pauseMilliseconds * 1000) }
        }
        throw Failure(
            code: .sqliteWALBusy, message: "the app's readers kept the write-ahead log busy; it was not truncated",
            isTransient: true)
    }

    deinit { close() }

    public func close() {
        if let handle {
            // A statement left open keeps the connection (close_v2 defers); it no longer reads the flag.
            if watched != nil { sqlite3_progress_handler(handle, 0, nil, nil) }
            sqlite3_close_v2(handle)
        }
        handle = nil
        watched = nil
    }

    /// Runs `statements` in one transaction (all or nothing) with `parameters` bound by name; returns the total
    /// rows they changed (`sqlite3_changes` after each).
    public func executeInTransaction(_ statements: [String], parameters: [String: String]) throws(Failure) -> Int {
        try run("BEGIN IMMEDIATE", parameters: [:])
        var changed = 0
        do {
            for sql in statements {
                try run(sql, parameters: parameters)
                changed += Int(sqlite3_changes(handle))
            }
            try run("COMMIT", parameters: [:])
        } catch {
            try? run("ROLLBACK", parameters: [:])
            throw error
        }
        return changed
    }

    /// Runs a query that returns one integer (a count) in its first column; nil when it returns no row.
    public func queryInteger(_ sql: String, parameters: [String: String]) throws(Failure) -> Int64? {
        var result: Int64?
        try run(sql, parameters: parameters) { statement in
            if result == nil { result = sqlite3_column_int64(statement, 0) }
        }
        return result
    }

    private func run(
        _ sql: String, parameters: [String: String], row: (OpaquePointer) -> Void = { _ in }
    ) throws(Failure) {
        guard let handle else { throw Failure(code: .sqliteOpen, message: "database is closed", isTransient: false) }
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else {
            throw failure(.sqlitePrepare, prepared)
        }
        defer { sqlite3_finalize(statement) }
        let count = sqlite3_bind_parameter_count(statement)
        if count > 0 {
            for index in 1...count {
                guard let cName = sqlite3_bind_parameter_name(statement, index) else {
                    throw Failure(
                        code: .sqliteParameter, message: "positional parameters are not supported; use :sub",
                        isTransient: false)
                }
                let name = String(cString: cName)
                guard let value = parameters[String(name.dropFirst())] else {
                    throw Failure(
                        code: .sqliteParameter,
                        message: "unknown parameter \(name); only :sub, :provider and :provider_sub are bound",
                        isTransient: false)
                }
                // The shim binds with SQLITE_TRANSIENT: SQLite copies the bytes before this call returns.
                let bound = shim_sqlite3_bind_text(statement, index, value, -1)
                guard bound == SQLITE_OK else { throw failure(.sqliteParameter, bound) }
            }
        }
        while true {
            let stepped = sqlite3_step(statement)
            if stepped == SQLITE_ROW {
                row(statement)
            } else if stepped == SQLITE_DONE {
                return
            } else {
                throw failure(.sqliteStep, stepped)
            }
        }
    }

    func failure(_ code: FailureCode, _ result: Int32) -> Failure {
        let primary = result & 0xFF
        let transient = primary == SQLITE_BUSY || primary == SQLITE_LOCKED
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(result)"
        return Failure(code: transient ? .sqliteBusy : code, message: message, isTransient: transient)
    }
}
