import LifecycleCore

/// Durable state of the service. One protocol, several implementations (SQLite now, PostgreSQL later):
/// callers never see SQL, and the same store test-suite runs against every implementation.
///
/// Writes go through ``write(_:)``: the body runs inside a transaction and the call returns only after that
/// transaction is durably committed. Implementations may let concurrent writers share one commit (group
/// commit); each body then runs inside its own savepoint, so a body that throws rolls back only its own work.
public protocol Store: Sendable {
    /// Runs `body` inside a write transaction; returns after the commit is durable.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreWriter) throws -> T) async throws -> T
    /// Runs `body` against a consistent snapshot.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T
    /// Flushes and releases resources; later calls fail with ``StoreError/closed``.
    func close() async
}

/// Queries available inside ``Store/read(_:)`` and ``Store/write(_:)``.
public protocol StoreReader {
    func notification(jti: String) throws -> StoredNotification?
    func notificationCount() throws -> Int
    func rejectionCount() throws -> Int
    func rejections(limit: Int) throws -> [StoredRejection]
}

/// Changes available inside ``Store/write(_:)``.
public protocol StoreWriter: StoreReader {
    /// Inserts a verified notification into the inbox unless it is a duplicate: same `jti`, or the same
    /// semantic key (audience, sub, type, event_time), since Apple may resend an event under a new `jti`.
    func insertNotification(_ notification: NewNotification) throws -> InboxInsertion
    /// Records an attempt that failed verification: reason code, time, size and body hash, never the body.
    func insertRejection(_ rejection: NewRejection) throws
}
