import LifecycleCore

/// Durable state of the service. One protocol, several implementations (SQLite now, PostgreSQL later):
/// callers never see SQL, and the same store test-suite runs against every implementation.
///
/// Writes go through ``write(_:)``: the body runs inside a transaction and the call returns only after that
/// transaction is durably committed. Implementations may let concurrent writers share one commit (group
/// commit); each body then runs inside its own savepoint, so a body that throws rolls back only its own work
/// and its caller gets that error, while the other bodies of the batch commit. A body must not keep the
/// reader or writer it is given beyond its own execution.
public protocol Store: Sendable {
    /// Runs `body` inside a write transaction; returns after the commit is durable. Cancelling the calling
    /// task does not withdraw a write already accepted: it still runs and commits.
    ///
    /// - Throws: the body's own error (its changes rolled back); ``StoreError/unavailable(_:)`` when the
    ///   transaction could not commit (then nothing of the body is stored); ``StoreError/closed``.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreWriter) throws -> T) async throws -> T
    /// Runs `body` against a consistent snapshot (one read transaction).
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T
    /// Finishes the writes already accepted, then releases resources; later calls fail with
    /// ``StoreError/closed``. Calling it again is harmless.
    func close() async
    /// Counters about writes and commits, for metrics and benchmarks.
    var statistics: StoreStatistics { get }
}

/// Queries available inside ``Store/read(_:)`` and ``Store/write(_:)``.
public protocol StoreReader {
    func notification(jti: String) throws -> StoredNotification?
    func notification(id: Int64) throws -> StoredNotification?
    func notificationCount() throws -> Int
    func rejectionCount() throws -> Int
    /// The most recent rejections, newest first.
    func rejections(limit: Int) throws -> [StoredRejection]
    /// Heartbeats with `start <= at < end`, oldest first.
    func heartbeats(from start: Instant, to end: Instant) throws -> [Heartbeat]
}

/// Changes available inside ``Store/write(_:)``.
public protocol StoreWriter: StoreReader {
    /// Inserts a verified notification into the inbox unless it is a duplicate: same `jti`, or the same
    /// semantic key (app, sub, type, event_time), since Apple may resend an event under a new `jti`.
    /// Decided by the store's unique keys, so two concurrent inserts of one event cannot both succeed.
    func insertNotification(_ notification: NewNotification) throws -> InboxInsertion
    /// Records an attempt that failed verification: reason code, time, size and body hash, never the body.
    func insertRejection(_ rejection: NewRejection) throws
    /// Records that `instance` was alive at `instant`; recording the same pair twice is a no-op.
    func recordHeartbeat(instance: String, at instant: Instant) throws
}
