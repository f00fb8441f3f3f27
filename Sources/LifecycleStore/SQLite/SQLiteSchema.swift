/// The SQLite schema as an ordered list of migrations. Later features append steps (accounts, history,
/// outbox, jobs ...); the version of a database is the number of steps applied.
enum SQLiteSchema {
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

    /// Crypto-shredding (NIST SP 800-88 Rev. 1 §2.6): personal values are stored sealed (AES-256-GCM) under a
    /// data key per (app, sub, scope), kept in `subject_keys` only wrapped by a master key whose id each row
    /// carries. Erasure sets `wrapped_key` to NULL: every copy of the sealed values (log, free pages, backups)
    /// is then unreadable. `master_keys` records which master key is in force (ids and dates only: the keys
    /// live outside the database), `instance_master_keys` which keys each running instance holds (a rotation
    /// waits for all of them), and `store_conversions` the one-time sealing of values an older release kept in
    /// the clear (`email`, `raw_jws`, which stay NULL from then on). A fresh database has nothing to convert.
    /// `subject_keys` has no index beyond its primary key: each new subject's key is one more random b-tree
    /// page in the commit, and a second index would double that on the ingest path; a rotation walks the
    /// primary key instead.
    ///
    /// `keys_destroyed` and `hygiene` are erasure evidence: how many data keys a `self` step destroyed, and
    /// what was done so that no pre-erasure byte remains in the files (`pending` until done).
    static let sealedPersonalValues = """
        CREATE TABLE master_keys (
            id TEXT PRIMARY KEY,
            state TEXT NOT NULL CHECK (state IN ('current', 'retiring', 'retired')),
            added_at_ms INTEGER NOT NULL,
            retired_at_ms INTEGER
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX master_keys_one_current ON master_keys (state) WHERE state = 'current';
        CREATE TABLE subject_keys (
            app TEXT NOT NULL,
            sub TEXT NOT NULL,
            scope TEXT NOT NULL CHECK (scope IN ('notifications', 'apple-tokens')),
            wrapped_key BLOB,
            master_key_id TEXT NOT NULL,
            created_at_ms INTEGER NOT NULL,
            destroyed_at_ms INTEGER,
            PRIMARY KEY (app, sub, scope),
            CHECK ((wrapped_key IS NULL) = (destroyed_at_ms IS NOT NULL))
        ) WITHOUT ROWID;
        CREATE TABLE instance_master_keys (
            instance TEXT PRIMARY KEY,
            master_key_ids TEXT NOT NULL,
            seen_at_ms INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE store_conversions (
            name TEXT PRIMARY KEY,
            done_at_ms INTEGER NOT NULL
        ) WITHOUT ROWID;
        ALTER TABLE notifications ADD COLUMN sealed_email BLOB;
        ALTER TABLE notifications ADD COLUMN sealed_raw_jws BLOB;
        ALTER TABLE erasure_steps ADD COLUMN keys_destroyed INTEGER;
        ALTER TABLE erasure_steps ADD COLUMN hygiene TEXT;
        CREATE INDEX erasure_steps_hygiene_pending ON erasure_steps (finished_at_ms) WHERE hygiene = 'pending';
        INSERT INTO store_conversions (name, done_at_ms)
            SELECT 'sealed-personal-values', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
            WHERE NOT EXISTS (SELECT 1 FROM notifications);
        """

    /// Reconcile runs (one `running` row at most: the lock, with a lease so a crashed run does not hold it
    /// forever) and the findings they keep. A finding's identity is (app, code, subject key): the `sub`, or the
    /// window start for findings about time such as a notification gap.
    static let reconciler = """
        CREATE TABLE reconcile_runs (
            id INTEGER PRIMARY KEY,
            app TEXT,
            status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'abandoned')),
            owner TEXT NOT NULL,
            started_at_ms INTEGER NOT NULL,
            leased_until_ms INTEGER NOT NULL,
            finished_at_ms INTEGER,
            summary TEXT,
            error TEXT
        );
        CREATE UNIQUE INDEX reconcile_runs_one_running ON reconcile_runs (status) WHERE status = 'running';
        CREATE TABLE findings (
            id INTEGER PRIMARY KEY,
            app TEXT NOT NULL,
            code TEXT NOT NULL,
            severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
            subject TEXT,
            subject_key TEXT NOT NULL,
            detail TEXT NOT NULL,
            window_from_ms INTEGER,
            window_to_ms INTEGER,
            first_seen_at_ms INTEGER NOT NULL,
            last_seen_at_ms INTEGER NOT NULL,
            last_run_id INTEGER NOT NULL REFERENCES reconcile_runs (id),
            resolved_at_ms INTEGER,
            UNIQUE (app, code, subject_key)
        );
        CREATE INDEX findings_open ON findings (app, resolved_at_ms, id);
        """

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

    /// One row per (app, `sub`): the columns of ``AccountRecord`` (DESIGN.md §5), times in milliseconds, names
    /// in their canonical spelling. `apple_token` is the sealed Apple refresh token: the service encrypts it,
    /// the store only keeps the bytes, and erasure nulls the column.
    static let accounts = """
        CREATE TABLE accounts (
            app TEXT NOT NULL,
            sub TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('linked', 'email-off', 'consent-revoked', 'deleted')),
            last_applied_event_time_ms INTEGER NOT NULL,
            email_forwarding INTEGER NOT NULL CHECK (email_forwarding IN (0, 1)),
            email_forwarding_event_time_ms INTEGER,
            email_forwarding_input TEXT,
            access_event_time_ms INTEGER,
            access_input TEXT,
            created_at_ms INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL,
            deleted_at_ms INTEGER,
            deleted_by TEXT,
            apple_token BLOB,
            PRIMARY KEY (app, sub)
        ) WITHOUT ROWID;
        CREATE INDEX accounts_state ON accounts (app, state);
        """

    /// Every input an account's state machine saw, whatever it did with it (DESIGN.md §5), oldest first by
    /// `id`. `effects` is the comma-joined stored names of ``AccountEffect`` (see ``StoredEffectNames``).
    /// `notification_id` points at the inbox row the input came from, when it came from one.
    static let accountHistory = """
        CREATE TABLE account_history (
            id INTEGER PRIMARY KEY,
            app TEXT NOT NULL,
            sub TEXT NOT NULL,
            input_kind TEXT NOT NULL,
            identity TEXT NOT NULL,
            event_time_ms INTEGER NOT NULL,
            received_at_ms INTEGER NOT NULL,
            disposition TEXT NOT NULL CHECK (disposition IN ('applied', 'stale', 'duplicate', 'ignored')),
            reason TEXT,
            from_state TEXT,
            to_state TEXT NOT NULL,
            effects TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('notification', 'replay', 'admin', 'reconciler')),
            notification_id INTEGER REFERENCES notifications (id)
        );
        CREATE INDEX account_history_account ON account_history (app, sub, id);
        CREATE INDEX account_history_notification ON account_history (notification_id)
            WHERE notification_id IS NOT NULL;
        """

    /// The transactional outbox (DESIGN.md §6): effects leave the state transaction as rows and a dispatcher
    /// delivers them at least once. A message is `pending` until delivered or given up (`dead`); a runner
    /// that claims one holds a lease (`lease_owner` until `leased_until_ms`) instead of a separate status, so
    /// an expired lease needs no clean-up to become claimable again.
    ///
    /// `outbox_pending_account` answers "is there an older pending message for this account?" for the
    /// per-account ordering of claims; `outbox_pending_due` finds due messages without scanning history.
    static let outbox = """
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY,
            app TEXT NOT NULL,
            sub TEXT NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            created_at_ms INTEGER NOT NULL,
            available_at_ms INTEGER NOT NULL,
            lease_owner TEXT,
            leased_until_ms INTEGER,
            last_attempt_at_ms INTEGER,
            last_error TEXT,
            last_status_code INTEGER,
            delivered_at_ms INTEGER
        );
        CREATE INDEX outbox_pending_account ON outbox (app, sub, id) WHERE status = 'pending';
        CREATE INDEX outbox_pending_due ON outbox (available_at_ms, id) WHERE status = 'pending';
        CREATE INDEX outbox_status ON outbox (status, id);
        """

    /// Scheduled erasure (DESIGN.md §7): one job per (input, rule) or retention purge, frozen at scheduling time
    /// (`policy_reference` is `id@version#sha256`, instants are absolute), and one step per target with its
    /// evidence. `status` and `finished_at_ms` of a job are a cache of what ``ErasureJob/status`` derives from
    /// its steps, rewritten after every step change, so lists and counts need no join.
    ///
    /// A claimed step is `running` under a lease (`lease_owner` until `leased_until_ms`); a `running` step
    /// whose lease has passed is claimable again, like an outbox message (the runner died mid-attempt).
    static let erasureJobs = """
        CREATE TABLE erasure_jobs (
            id INTEGER PRIMARY KEY,
            app TEXT NOT NULL,
            sub TEXT NOT NULL,
            trigger TEXT NOT NULL,
            event_time_ms INTEGER NOT NULL,
            policy_reference TEXT NOT NULL,
            origin TEXT NOT NULL,
            categories TEXT NOT NULL,
            not_before_ms INTEGER NOT NULL,
            deadline_ms INTEGER NOT NULL,
            cancel_if_relinked INTEGER NOT NULL CHECK (cancel_if_relinked IN (0, 1)),
            basis TEXT,
            status TEXT NOT NULL CHECK (
                status IN ('scheduled', 'running', 'completed', 'failed', 'cancelled', 'unverified')),
            created_at_ms INTEGER NOT NULL,
            finished_at_ms INTEGER,
            cancelled_at_ms INTEGER,
            cancel_reason TEXT
        );
        CREATE INDEX erasure_jobs_account ON erasure_jobs (app, sub, id);
        CREATE INDEX erasure_jobs_status ON erasure_jobs (status, id);
        CREATE TABLE erasure_steps (
            job_id INTEGER NOT NULL REFERENCES erasure_jobs (id),
            ordinal INTEGER NOT NULL CHECK (ordinal >= 0),
            target TEXT NOT NULL,
            status TEXT NOT NULL CHECK (
                status IN ('pending', 'running', 'done', 'waiting-callback', 'failed', 'unverified')),
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            next_attempt_at_ms INTEGER,
            lease_owner TEXT,
            leased_until_ms INTEGER,
            started_at_ms INTEGER,
            last_attempt_at_ms INTEGER,
            finished_at_ms INTEGER,
            rows_affected INTEGER,
            verification_count INTEGER,
            response_status INTEGER,
            error_code TEXT,
            PRIMARY KEY (job_id, ordinal),
            UNIQUE (job_id, target)
        ) WITHOUT ROWID;
        CREATE INDEX erasure_steps_due ON erasure_steps (next_attempt_at_ms) WHERE status = 'pending';
        CREATE INDEX erasure_steps_running ON erasure_steps (leased_until_ms) WHERE status = 'running';
        """

    /// One row per (scheduled day, app) whose reports `serve` wrote after its scheduled reconcile
    /// (``DailyReportRecord``): the primary key lets exactly one instance record a day.
    static let dailyReports = """
        CREATE TABLE daily_reports (
            day TEXT NOT NULL,
            app TEXT NOT NULL,
            instance TEXT NOT NULL,
            written_at_ms INTEGER NOT NULL,
            PRIMARY KEY (day, app)
        ) WITHOUT ROWID;
        """

    /// The `webhook-id` of each message (``WebhookMessageID``), written with the message from now on. Rows
    /// enqueued before keep the id they were delivered under, `msg_<row id>`, so a receiver that has seen one
    /// still recognises its retries. SQLite cannot add a NOT NULL column without a default
    /// (https://www.sqlite.org/lang_altertable.html §5.1); the store always writes one, and the unique index
    /// refuses a repeat.
    static let outboxMessageIDs = """
        ALTER TABLE outbox ADD COLUMN message_id TEXT;
        UPDATE outbox SET message_id = 'msg_' || id;
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
