/// The PostgreSQL schema: the same ordered steps, with the same versions and names, as ``SQLiteSchema``, in
/// PostgreSQL's dialect. A step added to one list is added to the other under the same version and name.
///
/// Dialect choices, the same for every table:
/// - ids are `BIGINT GENERATED ALWAYS AS IDENTITY` (https://www.postgresql.org/docs/15/sql-createtable.html);
/// - times are `BIGINT` milliseconds since the epoch, like SQLite's INTEGER (``Instant``);
/// - flags are `BOOLEAN`, blobs `BYTEA`;
/// - `sub` and state names are `COLLATE "C"`: compared and ordered by bytes, as SQLite's BINARY collation and
///   LifecycleCore's subject order do, whatever the database's locale.
enum PostgresSchema {
    static let migrations: [Migration] = [
        Migration(version: 1, name: "inbox", sql: inbox),
        Migration(version: 2, name: "rejections", sql: rejections),
        Migration(version: 3, name: "heartbeats", sql: heartbeats),
        Migration(version: 4, name: "accounts", sql: accounts),
        Migration(version: 5, name: "account-history", sql: accountHistory),
        Migration(version: 6, name: "outbox", sql: outbox),
        Migration(version: 7, name: "erasure-jobs", sql: erasureJobs),
        Migration(version: 8, name: "reconciler", sql: reconciler),
        Migration(version: 9, name: "daily-reports", sql: dailyReports),
        Migration(version: 10, name: "outbox-message-ids", sql: outboxMessageIDs),
        Migration(version: 11, name: "sealed-personal-values", sql: sealedPersonalValues),
        Migration(version: 12, name: "failure-code-spelling", sql: failureCodeSpelling),
    ]

    /// See ``SQLiteSchema/sealedPersonalValues``.
    static let sealedPersonalValues = """
        CREATE TABLE master_keys (
            id TEXT COLLATE "C" PRIMARY KEY,
            state TEXT COLLATE "C" NOT NULL CHECK (state IN ('current', 'retiring', 'retired')),
            added_at_ms BIGINT NOT NULL,
            retired_at_ms BIGINT
        );
        CREATE UNIQUE INDEX master_keys_one_current ON master_keys (state) WHERE state = 'current';
        CREATE TABLE subject_keys (
            app TEXT COLLATE "C" NOT NULL,
            sub TEXT COLLATE "C" NOT NULL,
            scope TEXT COLLATE "C" NOT NULL CHECK (scope IN ('notifications', 'apple-tokens')),
            wrapped_key BYTEA,
            master_key_id TEXT COLLATE "C" NOT NULL,
            created_at_ms BIGINT NOT NULL,
            destroyed_at_ms BIGINT,
            PRIMARY KEY (app, sub, scope),
            CHECK ((wrapped_key IS NULL) = (destroyed_at_ms IS NOT NULL))
        );
        CREATE TABLE instance_master_keys (
            instance TEXT COLLATE "C" PRIMARY KEY,
            master_key_ids TEXT NOT NULL,
            seen_at_ms BIGINT NOT NULL
        );
        CREATE TABLE store_conversions (
            name TEXT COLLATE "C" PRIMARY KEY,
            done_at_ms BIGINT NOT NULL
        );
        ALTER TABLE notifications ADD COLUMN sealed_email BYTEA;
        ALTER TABLE notifications ADD COLUMN sealed_raw_jws BYTEA;
        ALTER TABLE erasure_steps ADD COLUMN keys_destroyed BIGINT;
        ALTER TABLE erasure_steps ADD COLUMN hygiene TEXT;
        CREATE INDEX erasure_steps_hygiene_pending ON erasure_steps (finished_at_ms) WHERE hygiene = 'pending';
        INSERT INTO store_conversions (name, done_at_ms)
            SELECT 'sealed-personal-values', (extract(epoch FROM clock_timestamp()) * 1000)::bigint
            WHERE NOT EXISTS (SELECT 1 FROM notifications);
        """

    /// See ``SQLiteSchema/inbox``.
    static let inbox = """
        CREATE TABLE notifications (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app TEXT COLLATE "C" NOT NULL,
            jti TEXT COLLATE "C" NOT NULL UNIQUE,
            audience TEXT NOT NULL,
            issuer TEXT NOT NULL,
            sub TEXT COLLATE "C" NOT NULL,
            type TEXT COLLATE "C" NOT NULL,
            event_time_ms BIGINT NOT NULL,
            is_private_email BOOLEAN,
            email TEXT,
            issued_at_ms BIGINT NOT NULL,
            expires_at_ms BIGINT,
            key_id TEXT NOT NULL,
            accepted_expired BOOLEAN NOT NULL,
            received_at_ms BIGINT NOT NULL,
            body_sha256 TEXT NOT NULL,
            raw_jws TEXT,
            source TEXT NOT NULL,
            UNIQUE (app, sub, type, event_time_ms)
        );
        CREATE INDEX notifications_received_at ON notifications (received_at_ms);
        """

    /// See ``SQLiteSchema/rejections``.
    static let rejections = """
        CREATE TABLE rejections (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            reason TEXT NOT NULL,
            received_at_ms BIGINT NOT NULL,
            body_size BIGINT NOT NULL CHECK (body_size >= 0),
            body_sha256 TEXT NOT NULL,
            audience TEXT,
            source TEXT NOT NULL
        );
        CREATE INDEX rejections_received_at ON rejections (received_at_ms);
        """

    /// See ``SQLiteSchema/heartbeats``. One row per (instance, instant), so several instances on one
    /// database each leave their own proof of life.
    static let heartbeats = """
        CREATE TABLE heartbeats (
            instance TEXT COLLATE "C" NOT NULL,
            at_ms BIGINT NOT NULL,
            PRIMARY KEY (instance, at_ms)
        );
        CREATE INDEX heartbeats_at ON heartbeats (at_ms);
        """

    /// See ``SQLiteSchema/accounts``. The primary key is in byte order, so keyset paging by `sub` is an
    /// index range scan.
    static let accounts = """
        CREATE TABLE accounts (
            app TEXT COLLATE "C" NOT NULL,
            sub TEXT COLLATE "C" NOT NULL,
            state TEXT COLLATE "C" NOT NULL CHECK (state IN ('linked', 'email-off', 'consent-revoked', 'deleted')),
            last_applied_event_time_ms BIGINT NOT NULL,
            email_forwarding BOOLEAN NOT NULL,
            email_forwarding_event_time_ms BIGINT,
            email_forwarding_input TEXT,
            access_event_time_ms BIGINT,
            access_input TEXT,
            created_at_ms BIGINT NOT NULL,
            updated_at_ms BIGINT NOT NULL,
            deleted_at_ms BIGINT,
            deleted_by TEXT,
            apple_token BYTEA,
            PRIMARY KEY (app, sub)
        );
        CREATE INDEX accounts_state ON accounts (app, state);
        """

    /// See ``SQLiteSchema/accountHistory``.
    static let accountHistory = """
        CREATE TABLE account_history (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app TEXT COLLATE "C" NOT NULL,
            sub TEXT COLLATE "C" NOT NULL,
            input_kind TEXT NOT NULL,
            identity TEXT NOT NULL,
            event_time_ms BIGINT NOT NULL,
            received_at_ms BIGINT NOT NULL,
            disposition TEXT NOT NULL CHECK (disposition IN ('applied', 'stale', 'duplicate', 'ignored')),
            reason TEXT,
            from_state TEXT COLLATE "C",
            to_state TEXT COLLATE "C" NOT NULL,
            effects TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('notification', 'replay', 'admin', 'reconciler')),
            notification_id BIGINT REFERENCES notifications (id)
        );
        CREATE INDEX account_history_account ON account_history (app, sub, id);
        CREATE INDEX account_history_notification ON account_history (notification_id)
            WHERE notification_id IS NOT NULL;
        """

    /// See ``SQLiteSchema/outbox``. The partial indexes serve the same two questions; claims lock the rows
    /// they lease with `FOR UPDATE SKIP LOCKED` (``PostgresAccess/claimOutbox(now:owner:leaseUntil:limit:)``).
    static let outbox = """
        CREATE TABLE outbox (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app TEXT COLLATE "C" NOT NULL,
            sub TEXT COLLATE "C" NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
            attempts BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            created_at_ms BIGINT NOT NULL,
            available_at_ms BIGINT NOT NULL,
            lease_owner TEXT,
            leased_until_ms BIGINT,
            last_attempt_at_ms BIGINT,
            last_error TEXT,
            last_status_code BIGINT,
            delivered_at_ms BIGINT
        );
        CREATE INDEX outbox_pending_account ON outbox (app, sub, id) WHERE status = 'pending';
        CREATE INDEX outbox_pending_due ON outbox (available_at_ms, id) WHERE status = 'pending';
        CREATE INDEX outbox_status ON outbox (status, id);
        """

    /// See ``SQLiteSchema/erasureJobs``. Claims lock steps with `FOR UPDATE OF s SKIP LOCKED`
    /// (``PostgresAccess/claimErasureSteps(now:owner:leaseUntil:limit:)``).
    static let erasureJobs = """
        CREATE TABLE erasure_jobs (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app TEXT COLLATE "C" NOT NULL,
            sub TEXT COLLATE "C" NOT NULL,
            trigger TEXT NOT NULL,
            event_time_ms BIGINT NOT NULL,
            policy_reference TEXT NOT NULL,
            origin TEXT NOT NULL,
            categories TEXT NOT NULL,
            not_before_ms BIGINT NOT NULL,
            deadline_ms BIGINT NOT NULL,
            cancel_if_relinked BOOLEAN NOT NULL,
            basis TEXT,
            status TEXT COLLATE "C" NOT NULL CHECK (
                status IN ('scheduled', 'running', 'completed', 'failed', 'cancelled', 'unverified')),
            created_at_ms BIGINT NOT NULL,
            finished_at_ms BIGINT,
            cancelled_at_ms BIGINT,
            cancel_reason TEXT
        );
        CREATE INDEX erasure_jobs_account ON erasure_jobs (app, sub, id);
        CREATE INDEX erasure_jobs_status ON erasure_jobs (status, id);
        CREATE TABLE erasure_steps (
            job_id BIGINT NOT NULL REFERENCES erasure_jobs (id),
            ordinal BIGINT NOT NULL CHECK (ordinal >= 0),
            target TEXT COLLATE "C" NOT NULL,
            status TEXT COLLATE "C" NOT NULL CHECK (
                status IN ('pending', 'running', 'done', 'waiting-callback', 'failed', 'unverified')),
            attempts BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            next_attempt_at_ms BIGINT,
            lease_owner TEXT,
            leased_until_ms BIGINT,
            started_at_ms BIGINT,
            last_attempt_at_ms BIGINT,
            finished_at_ms BIGINT,
            rows_affected BIGINT,
            verification_count BIGINT,
            response_status BIGINT,
            error_code TEXT,
            PRIMARY KEY (job_id, ordinal),
            UNIQUE (job_id, target)
        );
        CREATE INDEX erasure_steps_due ON erasure_steps (next_attempt_at_ms) WHERE status = 'pending';
        CREATE INDEX erasure_steps_running ON erasure_steps (leased_until_ms) WHERE status = 'running';
        """

    /// See ``SQLiteSchema/reconciler``. The partial unique index on `running` is the cross-instance lock of
    /// a reconcile run (``PostgresAccess/beginReconcileRun(app:owner:at:leaseUntil:)``).
    static let reconciler = """
        CREATE TABLE reconcile_runs (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app TEXT COLLATE "C",
            status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'abandoned')),
            owner TEXT NOT NULL,
            started_at_ms BIGINT NOT NULL,
            leased_until_ms BIGINT NOT NULL,
            finished_at_ms BIGINT,
            summary TEXT,
            error TEXT
        );
        CREATE UNIQUE INDEX reconcile_runs_one_running ON reconcile_runs (status) WHERE status = 'running';
        CREATE TABLE findings (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app TEXT COLLATE "C" NOT NULL,
            code TEXT NOT NULL,
            severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
            subject TEXT COLLATE "C",
            subject_key TEXT COLLATE "C" NOT NULL,
            detail TEXT NOT NULL,
            window_from_ms BIGINT,
            window_to_ms BIGINT,
            first_seen_at_ms BIGINT NOT NULL,
            last_seen_at_ms BIGINT NOT NULL,
            last_run_id BIGINT NOT NULL REFERENCES reconcile_runs (id),
            resolved_at_ms BIGINT,
            UNIQUE (app, code, subject_key)
        );
        CREATE INDEX findings_open ON findings (app, resolved_at_ms, id);
        """

    /// See ``SQLiteSchema/dailyReports``.
    static let dailyReports = """
        CREATE TABLE daily_reports (
            day TEXT COLLATE "C" NOT NULL,
            app TEXT COLLATE "C" NOT NULL,
            instance TEXT NOT NULL,
            written_at_ms BIGINT NOT NULL,
            PRIMARY KEY (day, app)
        );
        """

    /// See ``SQLiteSchema/outboxMessageIDs``; here the column is NOT NULL once the old rows have their ids.
    static let outboxMessageIDs = """
        ALTER TABLE outbox ADD COLUMN message_id TEXT;
        UPDATE outbox SET message_id = 'msg_' || id;
        ALTER TABLE outbox ALTER COLUMN message_id SET NOT NULL;
        CREATE UNIQUE INDEX outbox_message_id ON outbox (message_id);
        """

    /// Failure codes have one spelling, snake_case (``FailureCode``); erasure evidence written before that
    /// used kebab-case (`sqlite-open`, `http-500`) and `webhook-not-configured` for what the outbox called
    /// `no_webhook_configured`. Reports written earlier keep what they said; the stored evidence is rewritten
    /// so every reader sees one code per failure.
    static let failureCodeSpelling = """
        UPDATE erasure_steps SET error_code = 'no_webhook_configured' WHERE error_code = 'webhook-not-configured';
        UPDATE erasure_steps SET error_code = REPLACE(error_code, '-', '_') WHERE error_code LIKE '%-%';
        """
}
