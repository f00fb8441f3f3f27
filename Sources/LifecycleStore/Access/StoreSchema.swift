/// The store's schema as an ordered list of migrations, described once for both databases and rendered in
/// each one's dialect (``SQLDialect/integer``, ``SQLDialect/id`` …). Later features append steps; the version
/// of a database is the number of steps applied, and a released step is never edited (its rendering for
/// either database must stay what it was, so existing databases and fresh ones agree).
///
/// Dialect choices, the same for every table:
/// - ids are SQLite's `INTEGER PRIMARY KEY` (the rowid), PostgreSQL's `BIGINT GENERATED ALWAYS AS IDENTITY`
///   (https://www.postgresql.org/docs/15/sql-createtable.html);
/// - times are integer milliseconds since the epoch (``Instant``): `INTEGER` (8 bytes) and `BIGINT`;
/// - flags are 0/1 with a CHECK on SQLite, which has no boolean type, and `BOOLEAN` on PostgreSQL; blobs are
///   `BLOB` and `BYTEA`;
/// - `sub` and state names compare by bytes: SQLite's BINARY collation does it by default, PostgreSQL's
///   columns say `COLLATE "C"`, as LifecycleCore's subject order does, whatever the database's locale;
/// - tables keyed by something other than an id are `WITHOUT ROWID` on SQLite (the key is the b-tree,
///   https://www.sqlite.org/withoutrowid.html); PostgreSQL has no rowid to drop.
enum StoreSchema {
    static func migrations(_ dialect: SQLDialect) -> [Migration] {
        [
            Migration(version: 1, name: "inbox", sql: inbox(dialect)),
            Migration(version: 2, name: "rejections", sql: rejections(dialect)),
            Migration(version: 3, name: "heartbeats", sql: heartbeats(dialect)),
            Migration(version: 4, name: "accounts", sql: accounts(dialect)),
            Migration(version: 5, name: "account-history", sql: accountHistory(dialect)),
            Migration(version: 6, name: "outbox", sql: outbox(dialect)),
            Migration(version: 7, name: "erasure-jobs", sql: erasureJobs(dialect)),
            Migration(version: 8, name: "reconciler", sql: reconciler(dialect)),
            Migration(version: 9, name: "daily-reports", sql: dailyReports(dialect)),
            Migration(version: 10, name: "outbox-message-ids", sql: outboxMessageIDs(dialect)),
            Migration(version: 11, name: "sealed-personal-values", sql: sealedPersonalValues(dialect)),
            Migration(version: 12, name: "failure-code-spelling", sql: failureCodeSpelling),
            Migration(version: 13, name: "apple-token-vault", sql: appleTokenVault(dialect)),
            Migration(version: 14, name: "apple-revocations", sql: appleRevocations(dialect)),
            Migration(version: 15, name: "apple-token-probe-retry", sql: appleTokenProbeRetry(dialect)),
            Migration(version: 16, name: "notification-payloads-held", sql: notificationPayloadsHeld),
            Migration(version: 17, name: "request-decisions", sql: requestDecisions(dialect)),
            Migration(version: 18, name: "account-aliases", sql: accountAliases(dialect)),
            Migration(version: 19, name: "erasure-jobs-open-by-deadline", sql: erasureJobsOpenByDeadline),
            Migration(version: 20, name: "accounts-without-state-index", sql: accountsWithoutStateIndex),
        ]
    }

    /// The verified notifications as received. `jti` is the idempotency key Apple gives; the second unique
    /// key is the event itself, because Apple may resend one event under a new `jti`. Times are integer
    /// milliseconds since the epoch (``Instant``). `raw_jws` is kept as evidence and scrubbed on erasure.
    static func inbox(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE notifications (
            id \(dialect.id),
            app \(dialect.orderedText) NOT NULL,
            jti \(dialect.orderedText) NOT NULL UNIQUE,
            audience TEXT NOT NULL,
            issuer TEXT NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            type \(dialect.orderedText) NOT NULL,
            event_time_ms \(dialect.integer) NOT NULL,
            is_private_email \(dialect.flag("is_private_email")),
            email TEXT,
            issued_at_ms \(dialect.integer) NOT NULL,
            expires_at_ms \(dialect.integer),
            key_id TEXT NOT NULL,
            accepted_expired \(dialect.flag("accepted_expired", notNull: true)),
            received_at_ms \(dialect.integer) NOT NULL,
            body_sha256 TEXT NOT NULL,
            raw_jws TEXT,
            source TEXT NOT NULL,
            UNIQUE (app, sub, type, event_time_ms)
        );
        CREATE INDEX notifications_received_at ON notifications (received_at_ms);
        """
    }

    /// Attempts that failed verification: enough to count, alert and correlate, never the body.
    static func rejections(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE rejections (
            id \(dialect.id),
            reason TEXT NOT NULL,
            received_at_ms \(dialect.integer) NOT NULL,
            body_size \(dialect.integer) NOT NULL CHECK (body_size >= 0),
            body_sha256 TEXT NOT NULL,
            audience TEXT,
            source TEXT NOT NULL
        );
        CREATE INDEX rejections_received_at ON rejections (received_at_ms);
        """
    }

    /// Proof that an instance was up and able to receive, for the `notification-gap` finding.
    static func heartbeats(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE heartbeats (
            instance \(dialect.orderedText) NOT NULL,
            at_ms \(dialect.integer) NOT NULL,
            PRIMARY KEY (instance, at_ms)
        )\(dialect.withoutRowID);
        CREATE INDEX heartbeats_at ON heartbeats (at_ms);
        """
    }

    /// One row per (app, `sub`): the columns of ``AccountRecord`` (DESIGN.md §5), times in milliseconds, names
    /// in their canonical spelling. `apple_token` is the sealed Apple refresh token: the service encrypts it,
    /// the store only keeps the bytes, and erasure nulls the column.
    static func accounts(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE accounts (
            app \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            state \(dialect.orderedText) NOT NULL CHECK (state IN ('linked', 'email-off', 'consent-revoked', 'deleted')),
            last_applied_event_time_ms \(dialect.integer) NOT NULL,
            email_forwarding \(dialect.flag("email_forwarding", notNull: true)),
            email_forwarding_event_time_ms \(dialect.integer),
            email_forwarding_input TEXT,
            access_event_time_ms \(dialect.integer),
            access_input TEXT,
            created_at_ms \(dialect.integer) NOT NULL,
            updated_at_ms \(dialect.integer) NOT NULL,
            deleted_at_ms \(dialect.integer),
            deleted_by TEXT,
            apple_token \(dialect.bytes),
            PRIMARY KEY (app, sub)
        )\(dialect.withoutRowID);
        CREATE INDEX accounts_state ON accounts (app, state);
        """
    }

    /// Every input an account's state machine saw, whatever it did with it (DESIGN.md §5), oldest first by
    /// `id`. `effects` is the comma-joined stored names of ``AccountEffect`` (see ``StoredEffectNames``).
    /// `notification_id` points at the inbox row the input came from, when it came from one.
    static func accountHistory(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE account_history (
            id \(dialect.id),
            app \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            input_kind TEXT NOT NULL,
            identity TEXT NOT NULL,
            event_time_ms \(dialect.integer) NOT NULL,
            received_at_ms \(dialect.integer) NOT NULL,
            disposition TEXT NOT NULL CHECK (disposition IN ('applied', 'stale', 'duplicate', 'ignored')),
            reason TEXT,
            from_state \(dialect.orderedText),
            to_state \(dialect.orderedText) NOT NULL,
            effects TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('notification', 'replay', 'admin', 'reconciler')),
            notification_id \(dialect.integer) REFERENCES notifications (id)
        );
        CREATE INDEX account_history_account ON account_history (app, sub, id);
        CREATE INDEX account_history_notification ON account_history (notification_id)
            WHERE notification_id IS NOT NULL;
        """
    }

    /// The transactional outbox (DESIGN.md §6): effects leave the state transaction as rows and a dispatcher
    /// delivers them at least once. A message is `pending` until delivered or given up (`dead`); a runner
    /// that claims one holds a lease (`lease_owner` until `leased_until_ms`) instead of a separate status, so
    /// an expired lease needs no clean-up to become claimable again.
    ///
    /// `outbox_pending_account` answers "is there an older pending message for this account?" for the
    /// per-account ordering of claims; `outbox_pending_due` finds due messages without scanning history.
    static func outbox(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE outbox (
            id \(dialect.id),
            app \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
            attempts \(dialect.integer) NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            created_at_ms \(dialect.integer) NOT NULL,
            available_at_ms \(dialect.integer) NOT NULL,
            lease_owner TEXT,
            leased_until_ms \(dialect.integer),
            last_attempt_at_ms \(dialect.integer),
            last_error TEXT,
            last_status_code \(dialect.integer),
            delivered_at_ms \(dialect.integer)
        );
        CREATE INDEX outbox_pending_account ON outbox (app, sub, id) WHERE status = 'pending';
        CREATE INDEX outbox_pending_due ON outbox (available_at_ms, id) WHERE status = 'pending';
        CREATE INDEX outbox_status ON outbox (status, id);
        """
    }

    /// Scheduled erasure (DESIGN.md §7): one job per (input, rule) or retention purge, frozen at scheduling time
    /// (`policy_reference` is `id@version#sha256`, instants are absolute), and one step per target with its
    /// evidence. `status` and `finished_at_ms` of a job are a cache of what ``ErasureJob/status`` derives from
    /// its steps, rewritten after every step change, so lists and counts need no join.
    ///
    /// A claimed step is `running` under a lease (`lease_owner` until `leased_until_ms`); a `running` step
    /// whose lease has passed is claimable again, like an outbox message (the runner died mid-attempt).
    static func erasureJobs(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE erasure_jobs (
            id \(dialect.id),
            app \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            trigger TEXT NOT NULL,
            event_time_ms \(dialect.integer) NOT NULL,
            policy_reference TEXT NOT NULL,
            origin TEXT NOT NULL,
            categories TEXT NOT NULL,
            not_before_ms \(dialect.integer) NOT NULL,
            deadline_ms \(dialect.integer) NOT NULL,
            cancel_if_relinked \(dialect.flag("cancel_if_relinked", notNull: true)),
            basis TEXT,
            status \(dialect.orderedText) NOT NULL CHECK (
                status IN ('scheduled', 'running', 'completed', 'failed', 'cancelled', 'unverified')),
            created_at_ms \(dialect.integer) NOT NULL,
            finished_at_ms \(dialect.integer),
            cancelled_at_ms \(dialect.integer),
            cancel_reason TEXT
        );
        CREATE INDEX erasure_jobs_account ON erasure_jobs (app, sub, id);
        CREATE INDEX erasure_jobs_status ON erasure_jobs (status, id);
        CREATE TABLE erasure_steps (
            job_id \(dialect.integer) NOT NULL REFERENCES erasure_jobs (id),
            ordinal \(dialect.integer) NOT NULL CHECK (ordinal >= 0),
            target \(dialect.orderedText) NOT NULL,
            status \(dialect.orderedText) NOT NULL CHECK (
                status IN ('pending', 'running', 'done', 'waiting-callback', 'failed', 'unverified')),
            attempts \(dialect.integer) NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            next_attempt_at_ms \(dialect.integer),
            lease_owner TEXT,
            leased_until_ms \(dialect.integer),
            started_at_ms \(dialect.integer),
            last_attempt_at_ms \(dialect.integer),
            finished_at_ms \(dialect.integer),
            rows_affected \(dialect.integer),
            verification_count \(dialect.integer),
            response_status \(dialect.integer),
            error_code TEXT,
            PRIMARY KEY (job_id, ordinal),
            UNIQUE (job_id, target)
        )\(dialect.withoutRowID);
        CREATE INDEX erasure_steps_due ON erasure_steps (next_attempt_at_ms) WHERE status = 'pending';
        CREATE INDEX erasure_steps_running ON erasure_steps (leased_until_ms) WHERE status = 'running';
        """
    }

    /// Reconcile runs (one `running` row at most: the lock, with a lease so a crashed run does not hold it
    /// forever) and the findings they keep. A finding's identity is (app, code, subject key): the `sub`, or the
    /// window start for findings about time such as a notification gap.
    static func reconciler(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE reconcile_runs (
            id \(dialect.id),
            app \(dialect.orderedText),
            status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'abandoned')),
            owner TEXT NOT NULL,
            started_at_ms \(dialect.integer) NOT NULL,
            leased_until_ms \(dialect.integer) NOT NULL,
            finished_at_ms \(dialect.integer),
            summary TEXT,
            error TEXT
        );
        CREATE UNIQUE INDEX reconcile_runs_one_running ON reconcile_runs (status) WHERE status = 'running';
        CREATE TABLE findings (
            id \(dialect.id),
            app \(dialect.orderedText) NOT NULL,
            code TEXT NOT NULL,
            severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
            subject \(dialect.orderedText),
            subject_key \(dialect.orderedText) NOT NULL,
            detail TEXT NOT NULL,
            window_from_ms \(dialect.integer),
            window_to_ms \(dialect.integer),
            first_seen_at_ms \(dialect.integer) NOT NULL,
            last_seen_at_ms \(dialect.integer) NOT NULL,
            last_run_id \(dialect.integer) NOT NULL REFERENCES reconcile_runs (id),
            resolved_at_ms \(dialect.integer),
            UNIQUE (app, code, subject_key)
        );
        CREATE INDEX findings_open ON findings (app, resolved_at_ms, id);
        """
    }

    /// One row per (scheduled day, app) whose reports `serve` wrote after its scheduled reconcile
    /// (``DailyReportRecord``): the primary key lets exactly one instance record a day.
    static func dailyReports(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE daily_reports (
            day \(dialect.orderedText) NOT NULL,
            app \(dialect.orderedText) NOT NULL,
            instance TEXT NOT NULL,
            written_at_ms \(dialect.integer) NOT NULL,
            PRIMARY KEY (day, app)
        )\(dialect.withoutRowID);
        """
    }

    /// The `webhook-id` of each message (``WebhookMessageID``), written with the message from now on. Rows
    /// enqueued before keep the id they were delivered under, `msg_<row id>`, so a receiver that has seen one
    /// still recognises its retries. SQLite cannot add a NOT NULL column without a default
    /// (https://www.sqlite.org/lang_altertable.html §5.1); the store always writes one, and the unique index
    /// refuses a repeat.
    /// PostgreSQL then makes the column NOT NULL once the old rows have their ids.
    static func outboxMessageIDs(_ dialect: SQLDialect) -> String {
        let required =
            switch dialect {
            case .sqlite: ""
            case .postgres: "\nALTER TABLE outbox ALTER COLUMN message_id SET NOT NULL;"
            }
        return """
            ALTER TABLE outbox ADD COLUMN message_id TEXT;
            UPDATE outbox SET message_id = 'msg_' || id;\(required)
            CREATE UNIQUE INDEX outbox_message_id ON outbox (message_id);
            """
    }

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
    static func sealedPersonalValues(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE master_keys (
            id \(dialect.orderedText) PRIMARY KEY,
            state \(dialect.orderedText) NOT NULL CHECK (state IN ('current', 'retiring', 'retired')),
            added_at_ms \(dialect.integer) NOT NULL,
            retired_at_ms \(dialect.integer)
        )\(dialect.withoutRowID);
        CREATE UNIQUE INDEX master_keys_one_current ON master_keys (state) WHERE state = 'current';
        CREATE TABLE subject_keys (
            app \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            scope \(dialect.orderedText) NOT NULL CHECK (scope IN ('notifications', 'apple-tokens')),
            wrapped_key \(dialect.bytes),
            master_key_id \(dialect.orderedText) NOT NULL,
            created_at_ms \(dialect.integer) NOT NULL,
            destroyed_at_ms \(dialect.integer),
            PRIMARY KEY (app, sub, scope),
            CHECK ((wrapped_key IS NULL) = (destroyed_at_ms IS NOT NULL))
        )\(dialect.withoutRowID);
        CREATE TABLE instance_master_keys (
            instance \(dialect.orderedText) PRIMARY KEY,
            master_key_ids TEXT NOT NULL,
            seen_at_ms \(dialect.integer) NOT NULL
        )\(dialect.withoutRowID);
        CREATE TABLE store_conversions (
            name \(dialect.orderedText) PRIMARY KEY,
            done_at_ms \(dialect.integer) NOT NULL
        )\(dialect.withoutRowID);
        ALTER TABLE notifications ADD COLUMN sealed_email \(dialect.bytes);
        ALTER TABLE notifications ADD COLUMN sealed_raw_jws \(dialect.bytes);
        ALTER TABLE erasure_steps ADD COLUMN keys_destroyed \(dialect.integer);
        ALTER TABLE erasure_steps ADD COLUMN hygiene TEXT;
        CREATE INDEX erasure_steps_hygiene_pending ON erasure_steps (finished_at_ms) WHERE hygiene = 'pending';
        INSERT INTO store_conversions (name, done_at_ms)
            SELECT 'sealed-personal-values', \(dialect.nowMilliseconds)
            WHERE NOT EXISTS (SELECT 1 FROM notifications);
        """
    }

    /// Failure codes have one spelling, snake_case (``FailureCode``); erasure evidence written before that
    /// used kebab-case (`sqlite-open`, `http-500`) and `webhook-not-configured` for what the outbox called
    /// `no_webhook_configured`. Reports written earlier keep what they said; the stored evidence is rewritten
    /// so every reader sees one code per failure. The same statements in both dialects.
    static let failureCodeSpelling = """
        UPDATE erasure_steps SET error_code = 'no_webhook_configured' WHERE error_code = 'webhook-not-configured';
        UPDATE erasure_steps SET error_code = REPLACE(error_code, '-', '_') WHERE error_code LIKE '%-%';
        """

    /// The Apple token vault: one row per account that ever had a refresh token (Apple, "Generate and validate
    /// tokens"). `sealed_refresh_token` is sealed by the service under the subject's `apple-tokens` data key
    /// (``SealedColumn/appleRefreshToken``); erasure clears it and destroys the key, a transition that drops
    /// the token clears it and sets `dropped_at_ms`. `client_id` is the client the token was issued to, which
    /// every refresh or revoke must name. `revoked_at_ms` (Apple told to revoke) and `last_probe_at_ms` (the
    /// last `refresh_token` grant: Apple asks for at most one a day per token) are the bookkeeping of the
    /// revocation and probe schedules, kept on the token's row so that a conditional `UPDATE` of it can
    /// enforce their rules for every instance at once. The row needs its account (foreign key).
    ///
    /// `accounts.apple_token` (migration 4) is left as it is: no release wrote it.
    static func appleTokenVault(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE apple_tokens (
            app \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            client_id TEXT NOT NULL,
            sealed_refresh_token \(dialect.bytes),
            linked_via TEXT NOT NULL CHECK (linked_via IN ('authorization-code', 'refresh-token')),
            linked_at_ms \(dialect.integer) NOT NULL,
            dropped_at_ms \(dialect.integer),
            revoked_at_ms \(dialect.integer),
            last_probe_at_ms \(dialect.integer),
            PRIMARY KEY (app, sub),
            FOREIGN KEY (app, sub) REFERENCES accounts (app, sub)
        )\(dialect.withoutRowID);
        """
    }

    /// The durable revocation queue (Apple, "Revoke tokens"; App Store Review Guideline 5.1.1(v)): a deletion
    /// that revokes inserts its row in the transition's own transaction, so a crash after the commit loses
    /// nothing. One row per account (`UNIQUE (app, sub)`: an account is deleted once). Claimed like the outbox
    /// (lease owner and expiry, `attempts`, `available_at_ms` for the backoff); `revokes` counts the times Apple
    /// accepted `/auth/revoke`, `verified_at_ms` is the `invalid_grant` that proved it. The token itself stays in
    /// `apple_tokens`, sealed, until the row is final; the erasure `self` step, which destroys the key that
    /// opens it, is not claimed while the account has a `pending` revocation.
    static func appleRevocations(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE apple_revocations (
            id \(dialect.id),
            app \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            status \(dialect.orderedText) NOT NULL
                CHECK (status IN ('pending', 'verified', 'unverified', 'no-token', 'failed')),
            attempts \(dialect.integer) NOT NULL DEFAULT 0,
            revokes \(dialect.integer) NOT NULL DEFAULT 0,
            requested_at_ms \(dialect.integer) NOT NULL,
            available_at_ms \(dialect.integer) NOT NULL,
            lease_owner TEXT,
            leased_until_ms \(dialect.integer),
            revoked_at_ms \(dialect.integer),
            verified_at_ms \(dialect.integer),
            finished_at_ms \(dialect.integer),
            last_error TEXT,
            UNIQUE (app, sub),
            FOREIGN KEY (app, sub) REFERENCES accounts (app, sub)
        );
        CREATE INDEX apple_revocations_pending_due ON apple_revocations (available_at_ms) WHERE status = 'pending';
        """
    }

    /// The daily probe's back-off: a probe that got no answer from Apple (5xx, 429, a timeout) gives its claim
    /// back (`last_probe_at_ms` restored, so the day's probe is not lost) and sets `probe_not_before_ms`, so the
    /// retry waits for a later round instead of asking again at once. Nil when no retry is waiting.
    static func appleTokenProbeRetry(_ dialect: SQLDialect) -> String {
        """
        ALTER TABLE apple_tokens ADD COLUMN probe_not_before_ms \(dialect.integer);
        """
    }

    /// The inbox rows that still hold a payload, by receipt: what the retention purge looks for
    /// (``StoreAccess/purgeExpired(_:before:limit:)``). Without it each purge batch would walk every row already
    /// cleared before reaching the next one to clear. Rows leave it as they are cleared (by the purge or an
    /// erasure), so it stays as small as the payloads kept. The condition is ``payloadHeld``, written the same
    /// in the query, so SQLite's planner can use the partial index (https://www.sqlite.org/partialindex.html §2).
    static let notificationPayloadsHeld = """
        CREATE INDEX notifications_payload_held ON notifications (received_at_ms) WHERE \(payloadHeld);
        """

    static let payloadHeld =
        "(raw_jws IS NOT NULL OR email IS NOT NULL OR sealed_raw_jws IS NOT NULL OR sealed_email IS NOT NULL)"

    /// What the controller decided about a deletion request besides erasing it (GDPR Art. 12(3) and CCPA
    /// regulations §7021(b) extensions, §7101(a) denials, legal holds): one row per decision, never deleted
    /// (the request ledger is kept 24 months at least, §7101(b), and erasure deletes no ledger row). A request
    /// is (app, sub, trigger, event time), the key its erasure jobs carry. A hold is in force while
    /// `released_at_ms` is NULL; the erasure runner claims no step of a held request.
    static func requestDecisions(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE request_decisions (
            id \(dialect.id),
            app \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            trigger \(dialect.orderedText) NOT NULL,
            event_time_ms \(dialect.integer) NOT NULL,
            kind \(dialect.orderedText) NOT NULL CHECK (kind IN ('extension', 'hold', 'refusal')),
            reason TEXT NOT NULL,
            notice_at_ms \(dialect.integer),
            previous_deadline_ms \(dialect.integer),
            new_deadline_ms \(dialect.integer),
            recorded_at_ms \(dialect.integer) NOT NULL,
            released_at_ms \(dialect.integer),
            release_reason TEXT
        );
        CREATE INDEX request_decisions_request ON request_decisions (app, sub, trigger, event_time_ms, id);
        CREATE INDEX request_decisions_held ON request_decisions (app, sub)
            WHERE kind = 'hold' AND released_at_ms IS NULL;
        """
    }

    /// The identifiers security events may name an account by (RISC `identifier-changed`,
    /// `identifier-recycled`): append-only, the latest row of an alias in force.
    static func accountAliases(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE account_aliases (
            id \(dialect.id),
            app \(dialect.orderedText) NOT NULL,
            alias \(dialect.orderedText) NOT NULL,
            sub \(dialect.orderedText) NOT NULL,
            kind \(dialect.orderedText) NOT NULL CHECK (kind IN ('changed', 'recycled')),
            notification_id \(dialect.integer) NOT NULL,
            recorded_at_ms \(dialect.integer) NOT NULL
        );
        CREATE INDEX account_aliases_alias ON account_aliases (app, alias, id);
        CREATE INDEX account_aliases_account ON account_aliases (app, sub, id);
        """
    }

    /// The open erasure jobs (``openJobStatuses``) in deadline order: what the runner's claim walks
    /// (``StoreAccess/claimErasureStepsSQL``), so that it stops after `limit` due steps of the most urgent jobs
    /// instead of collecting and sorting every due step of the backlog on every claim. Jobs leave it as they
    /// finish, so it stays as small as the open work. The condition is written the same in the claim, so
    /// SQLite's planner can use the partial index (https://www.sqlite.org/partialindex.html §2).
    static let erasureJobsOpenByDeadline = """
        CREATE INDEX erasure_jobs_open ON erasure_jobs (deadline_ms, id) WHERE \(openJobStatuses);
        """

    /// `accounts_state (app, state)` put one more b-tree leaf at a random key into every new account's commit and
    /// moved an entry on every change of state, on the ingest path, for one reader: the count of live accounts
    /// a `notification-gap` finding states, which the reconcile makes only when it found a gap and which a walk
    /// of the app's accounts answers (`scripts/bench/store-floor.sh`: 58.2 KB of log a notification without
    /// it, 63.6 KB with it).
    static let accountsWithoutStateIndex = """
        DROP INDEX accounts_state;
        """

    /// The job statuses that can still have a claimable step: a job is `scheduled` or `running` while one of its
    /// steps is not final (``ErasureJob/status``).
    static let openJobStatuses = "status IN ('scheduled', 'running')"
}
