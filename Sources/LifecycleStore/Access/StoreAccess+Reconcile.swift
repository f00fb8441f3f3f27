import LifecycleCore
import LifecycleSQL

/// Reconcile runs, findings, and the service's view of each account for the merge.
extension StoreAccess {
    // MARK: Runs

    /// A `running` row is the lock; the partial unique index `reconcile_runs_one_running` keeps it to one. On
    /// SQLite the writer's lock makes the insert and the read of the holder one step. On PostgreSQL, of two
    /// instances inserting a `running` row at once, the second waits for the first to commit and then inserts
    /// nothing; each statement then sees what committed before it (READ COMMITTED), so a holder that finishes
    /// between the insert and the read leaves no running row, and the insert is tried again.
    func beginReconcileRun(
        app: String?, owner: String, at instant: Instant, leaseUntil: Instant
    ) throws(StoreError) -> ReconcileRunClaim {
        try sql { () throws -> ReconcileRunClaim in
            try connection.run(
                """
                UPDATE reconcile_runs SET status = 'abandoned', finished_at_ms = $1, error = 'lease expired'
                WHERE status = 'running' AND leased_until_ms <= $1
                """, [instant.millisecondsSinceEpoch])
            for _ in 0..<3 {
                if let id = try connection.fetchInt64(
                    """
                    INSERT INTO reconcile_runs (app, status, owner, started_at_ms, leased_until_ms)
                    VALUES ($1, 'running', $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id
                    """, [app, owner, instant.millisecondsSinceEpoch, leaseUntil.millisecondsSinceEpoch])
                {
                    return .started(id: id)
                }
                let holder = try connection.fetchOne(
                    "SELECT id, owner, started_at_ms, leased_until_ms FROM reconcile_runs WHERE status = 'running'"
                ) { row in
                    ReconcileRunHolder(
                        id: row.int64(0), owner: row.text(1), startedAt: Instant(millisecondsSinceEpoch: row.int64(2)),
                        leasedUntil: Instant(millisecondsSinceEpoch: row.int64(3)))
                }
                if let holder { return .busy(holder) }
            }
            throw Connection.lockNotAvailable("the reconcile lock changed hands three times; try again")
        }
    }

    func abandonReconcileRun(id: Int64, at instant: Instant, reason: String) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchInt64(
                """
                UPDATE reconcile_runs SET status = 'abandoned', finished_at_ms = $1, error = $2
                WHERE id = $3 AND status = 'running' RETURNING 1
                """, [instant.millisecondsSinceEpoch, reason, id]) != nil
        }
    }

    func renewReconcileRun(id: Int64, leaseUntil: Instant) throws(StoreError) {
        try sql {
            try connection.run(
                "UPDATE reconcile_runs SET leased_until_ms = $1 WHERE id = $2 AND status = 'running'",
                [leaseUntil.millisecondsSinceEpoch, id])
        }
    }

    func finishReconcileRun(
        id: Int64, status: ReconcileRunStatus, at instant: Instant, summary: String?, error: String?
    ) throws(StoreError) {
        try sql {
            try connection.run(
                """
                UPDATE reconcile_runs SET status = $1, finished_at_ms = $2, summary = $3, error = $4
                WHERE id = $5 AND status = 'running'
                """, [status.rawValue, instant.millisecondsSinceEpoch, summary, error, id])
        }
    }

    func reconcileRuns(limit: Int) throws(StoreError) -> [StoredReconcileRun] {
        try sql {
            try connection.fetchAll(
                """
                SELECT id, app, status, started_at_ms, finished_at_ms, summary, error
                FROM reconcile_runs ORDER BY id DESC LIMIT $1
                """, [max(0, limit)]
            ) { row in
                StoredReconcileRun(
                    id: row.int64(0), app: row.optionalText(1),
                    status: ReconcileRunStatus(rawValue: row.text(2)) ?? .failed,
                    startedAt: Instant(millisecondsSinceEpoch: row.int64(3)),
                    finishedAt: row.optionalInt64(4).map(Instant.init(millisecondsSinceEpoch:)),
                    summary: row.optionalText(5), error: row.optionalText(6))
            }
        }
    }

    // MARK: Findings

    func recordFindings(app: String, runID: Int64, findings: [Finding], at instant: Instant) throws(StoreError) {
        try sql {
            for finding in findings {
                try connection.run(
                    """
                    INSERT INTO findings (app, code, severity, subject, subject_key, detail, window_from_ms,
                        window_to_ms, first_seen_at_ms, last_seen_at_ms, last_run_id)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                    ON CONFLICT (app, code, subject_key) DO UPDATE SET
                        severity = excluded.severity, detail = excluded.detail, window_to_ms = excluded.window_to_ms,
                        last_seen_at_ms = excluded.last_seen_at_ms, last_run_id = excluded.last_run_id,
                        resolved_at_ms = NULL
                    """,
                    [
                        app, finding.code.rawValue, finding.severity.rawValue, finding.subject,
                        FindingRow.subjectKey(finding), finding.detail, finding.window?.from.millisecondsSinceEpoch,
                        finding.window?.to.millisecondsSinceEpoch, instant.millisecondsSinceEpoch,
                        instant.millisecondsSinceEpoch, runID,
                    ])
            }
        }
    }

    func resolveFindings(app: String, notSeenInRun runID: Int64, at instant: Instant) throws(StoreError) -> Int {
        try sql {
            try connection.fetchCount(
                """
                UPDATE findings SET resolved_at_ms = $1
                WHERE app = $2 AND resolved_at_ms IS NULL AND last_run_id <> $3
                RETURNING 1
                """, [instant.millisecondsSinceEpoch, app, runID])
        }
    }

    /// `$1::text IS NULL`: PostgreSQL cannot infer a type from `$1 IS NULL` alone (SQLite needs none).
    func findings(app: String?, includeResolved: Bool, limit: Int, afterID: Int64?) throws(StoreError)
        -> [StoredFinding]
    {
        try sql {
            try connection.fetchAll(
                """
                SELECT id, app, code, severity, subject, detail, window_from_ms, window_to_ms, first_seen_at_ms,
                    last_seen_at_ms, last_run_id, resolved_at_ms
                FROM findings
                WHERE ($1::text IS NULL OR app = $1) AND ($2::boolean OR resolved_at_ms IS NULL) AND id > $3
                ORDER BY id LIMIT $4
                """, [app, includeResolved, afterID ?? 0, max(0, limit)]
            ) { row in try FindingRow.decode(row) }
        }
    }

    // MARK: Observed accounts

    private static var observedAccountColumns: String {
        "SELECT a.sub, a.state, a.deleted_at_ms, a.access_event_time_ms, a.access_input FROM accounts a"
    }

    static var observedAccountsFirstPage: String {
        observedAccountColumns + " WHERE a.app = $1 ORDER BY a.sub LIMIT $2"
    }

    static var observedAccountsAfter: String {
        observedAccountColumns + " WHERE a.app = $1 AND a.sub > $2 ORDER BY a.sub LIMIT $3"
    }

    /// The erasure facts of every account in [$2, $3] from the jobs of the policy's erasure rules (`origin`
    /// `rules[…]`); retention purge jobs are years away by design and say nothing about whether erasure is late.
    /// Scheduled and running jobs are not cancelled, so one pass over the non-cancelled jobs gives all three.
    private static var observedErasureFacts: String {
        """
        SELECT j.sub,
            min(CASE WHEN j.status IN ('scheduled', 'running') THEN j.deadline_ms END), max(j.deadline_ms),
            \(Connection.dialect.distinctList("j.status"))
        FROM erasure_jobs j
        WHERE j.app = $1 AND j.sub >= $2 AND j.sub <= $3 AND j.origin LIKE 'rules%' AND j.status <> 'cancelled'
        GROUP BY j.sub
        """
    }

    /// One page of the service's view, ordered by `sub` in byte order (SQLite's BINARY collation,
    /// `COLLATE "C"` on PostgreSQL).
    ///
    /// Three range reads per page rather than correlated subqueries per account: the page of accounts, then the
    /// erasure jobs and the Apple revocations of the subjects from its first to its last (index range scans on
    /// `erasure_jobs_account` and the revocations' unique key), joined here. Most accounts have neither, and a
    /// subquery per account paid three index searches for each of them: 5 of the 6 s a walk of a million
    /// accounts took.
    ///
    /// Two statements for the page, not one with `($2 IS NULL OR a.sub > $2)`: with a bound parameter SQLite
    /// cannot drop the `OR` at prepare time, so it would use the primary key for `app = $1` only and walk every
    /// earlier account on every page, which makes a full walk quadratic
    /// (https://www.sqlite.org/optoverview.html#or_optimizations). `a.sub > $2` alone is a range search on the
    /// primary key (app, sub): each page costs the same.
    func observedAccounts(app: String, afterSubject: String?, limit: Int) throws(StoreError) -> [ObservedAccount] {
        try sql { () throws -> [ObservedAccount] in
            let (sql, arguments): (String, [any SQLBindable]) =
                if let afterSubject {
                    (Self.observedAccountsAfter, [app, afterSubject, max(0, limit)])
                } else {
                    (Self.observedAccountsFirstPage, [app, max(0, limit)])
                }
            let accounts = try connection.fetchAll(sql, arguments) { row in try ObservedAccountRow.Account.decode(row) }
            guard let first = accounts.first?.subject, let last = accounts.last?.subject else { return [] }
            var facts: [String: ObservedAccountRow.ErasureFacts] = [:]
            try connection.fetchEach(Self.observedErasureFacts, [app, first, last]) { row in
                let (subject, value) = ObservedAccountRow.ErasureFacts.decode(row)
                facts[subject] = value
            }
            var revocations: [String: String] = [:]
            for revocation in try appleRevocations(app: app, fromSubject: first, throughSubject: last) {
                revocations[revocation.subject] = revocation.status.rawValue
            }
            return accounts.map { account in
                ObservedAccountRow.observed(
                    account, erasure: facts[account.subject], revocation: revocations[account.subject])
            }
        }
    }

    /// Accounts that can still receive notifications (not deleted), for "how many could a gap have hit". A walk
    /// of the app's accounts by primary key: no index keeps states apart (schema migration 20).
    func liveAccountCount(app: String) throws(StoreError) -> Int {
        try sql { Int(try connection.fetchInt64(Self.liveAccountCountSQL, [app]) ?? 0) }
    }

    static var liveAccountCountSQL: String { "SELECT count(*) FROM accounts WHERE app = $1 AND state <> 'deleted'" }
}
