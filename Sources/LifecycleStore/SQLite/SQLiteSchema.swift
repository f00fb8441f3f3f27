/// The SQLite schema as an ordered list of migrations. Later features append steps (accounts, history,
/// outbox, jobs ...); the version of a database is the number of steps applied.
enum SQLiteSchema {
    static let migrations: [Migration] = [
        Migration(version: 1, name: "inbox", sql: inbox),
        Migration(version: 2, name: "rejections", sql: rejections),
        Migration(version: 3, name: "heartbeats", sql: heartbeats),
    ]

    /// The verified notifications as received. `jti` is the idempotency key Apple gives; the second unique
    /// key is the event itself, because Apple may resend one event under a new `jti`. Times are integer
    /// milliseconds since the epoch (``Instant``). `raw_jws` is kept as evidence and scrubbed on erasure.
    static let inbox = """
        CREATE TABLE notifications (
            id INTEGER PRIMARY KEY,
            app TEXT NOT NULL,
            jti TEXT NOT NULL UNIQUE,
            audience TEXT NOT NULL,
            issuer TEXT NOT NULL,
            sub TEXT NOT NULL,
            type TEXT NOT NULL,
            event_time_ms INTEGER NOT NULL,
            is_private_email INTEGER CHECK (is_private_email IN (0, 1)),
            email TEXT,
            issued_at_ms INTEGER NOT NULL,
            expires_at_ms INTEGER,
            key_id TEXT NOT NULL,
            accepted_expired INTEGER NOT NULL CHECK (accepted_expired IN (0, 1)),
            received_at_ms INTEGER NOT NULL,
            body_sha256 TEXT NOT NULL,
            raw_jws TEXT,
            source TEXT NOT NULL,
            UNIQUE (app, sub, type, event_time_ms)
        );
        CREATE INDEX notifications_received_at ON notifications (received_at_ms);
        """

    /// Attempts that failed verification: enough to count, alert and correlate, never the body.
    static let rejections = """
        CREATE TABLE rejections (
            id INTEGER PRIMARY KEY,
            reason TEXT NOT NULL,
            received_at_ms INTEGER NOT NULL,
            body_size INTEGER NOT NULL CHECK (body_size >= 0),
            body_sha256 TEXT NOT NULL,
            audience TEXT,
            source TEXT NOT NULL
        );
        CREATE INDEX rejections_received_at ON rejections (received_at_ms);
        """

    /// Proof that an instance was up and able to receive, for the `notification-gap` finding.
    static let heartbeats = """
        CREATE TABLE heartbeats (
            instance TEXT NOT NULL,
            at_ms INTEGER NOT NULL,
            PRIMARY KEY (instance, at_ms)
        ) WITHOUT ROWID;
        CREATE INDEX heartbeats_at ON heartbeats (at_ms);
        """
}
