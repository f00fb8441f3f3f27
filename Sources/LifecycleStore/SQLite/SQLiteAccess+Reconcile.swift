import LifecycleCore
import LifecycleSQL

/// Reconcile runs, findings, and the service's view of each account for the merge.
extension SQLiteAccess {
    // MARK: Runs

    func beginReconcileRun(
        app: String?, owner: String, at instant: Instant, leaseUntil: Instant
    ) throws(StoreError) -> ReconcileRunClaim {
        try sqlite { () throws -> ReconcileRunClaim in
            try connection.execute(
                """
                UPDATE reconcile_runs SET status = 'abandoned', finished_at_ms = ?, error = 'lease expired'
                WHERE status = 'running' AND leased_until_ms <= ?
                """, [instant.millisecondsSinceEpoch, instant.millisecondsSinceEpoch])
            if let id = try connection.queryInt64(
                """
                INSERT INTO reconcile_runs (app, status, owner, started_at_ms, leased_until_ms)
                VALUES (?, 'running', ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id
                """, [app, owner, instant.millisecondsSinceEpoch, leaseUntil.millisecondsSinceEpoch])
            {
                return .started(id: id)
            }
            let holder = try connection.firstRow(
                "SELECT id, owner, started_at_ms, leased_until_ms FROM reconcile_runs WHERE status = 'running'", []
            ) { row in
                ReconcileRunHolder(
                    id: row.int64(0), owner: row.text(1), startedAt: Instant(millisecondsSinceEpoch: row.int64(2)),
                    leasedUntil: Instant(millisecondsSinceEpoch: row.int64(3)))
            }
            guard let holder else { throw SQLiteError(code: 1, message: "reconcile lock neither taken nor held") }
            return .busy(holder)
        }
    }

    func abandonReconcileRun(id: Int64, at instant: Instant, reason: String) throws(StoreError) -> Bool {
        try sqlite {
            try connection.queryInt64(
                """
                UPDATE reconcile_runs SET status = 'abandoned', finished_at_ms = ?, error = ?
                WHERE id = ? AND status = 'running' RETURNING 1
                """, [instant.millisecondsSinceEpoch, reason, id]) != nil
        }
    }

    func renewReconcileRun(id: Int64, leaseUntil: Instant) throws(StoreError) {
        try sqlite {
            try connection.execute(
                "UPDATE reconcile_runs SET leased_until_ms = ? WHERE id = ? AND status = 'running'",
                [leaseUntil.millisecondsSinceEpoch, id])
        }
    }

    func finishReconcileRun(
        id: Int64, status: ReconcileRunStatus, at instant: Instant, summary: String?, error: String?
    ) throws(StoreError) {
        try sqlite {
            try connection.execute(
                """
                UPDATE reconcile_runs SET status = ?, finished_at_ms = ?, summary = ?, error = ?
                WHERE id = ? AND status = 'running'
                """, [status.rawValue, instant.millisecondsSinceEpoch, summary, error, id])
        }
    }

    func reconcileRuns(limit: Int) throws(StoreError) -> [StoredReconcileRun] {
        try sqlite { () throws -> [StoredReconcileRun] in
            var runs: [StoredReconcileRun] = []
            try connection.forEachRow(
                """
                SELECT id, app, status, started_at_ms, finished_at_ms, summary, error
                FROM reconcile_runs ORDER BY id DESC LIMIT ?
                """, [max(0, limit)]
            ) { row in
                runs.append(
                    StoredReconcileRun(
                        id: row.int64(0), app: row.optionalText(1),
                        status: ReconcileRunStatus(rawValue: row.text(2)) ?? .failed,
                        startedAt: Instant(millisecondsSinceEpoch: row.int64(3)),
                        finishedAt: row.optionalInt64(4).map(Instant.init(millisecondsSinceEpoch:)),
                        summary: row.optionalText(5), error: row.optionalText(6)))
            }
            return runs
        }
    }

    // MARK: Findings

    /// The identity of a finding: its subject, or the start of its window, or nothing (one per code).
    static func subjectKey(_ finding: Finding) -> String {
        if let subject = finding.subject { return "sub:" + subject }
        if let window = finding.window { return "window:\(window.from.millisecondsSinceEpoch)" }
        return "-"
    }

    func recordFindings(app: String, runID: Int64, findings: [Finding], at instant: Instant) throws(StoreError) {
        try sqlite {
            for finding in findings {
                try connection.execute(
                    """
                    INSERT INTO findings (app, code, severity, subject, subject_key, detail, window_from_ms,
                        window_to_ms, first_seen_at_ms, last_seen_at_ms, last_run_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app, code, subject_key) DO UPDATE SET
                        severity = excluded.severity, detail = excluded.detail, window_to_ms = excluded.window_to_ms,
                        last_seen_at_ms = excluded.last_seen_at_ms, last_run_id = excluded.last_run_id,
                        resolved_at_ms = NULL
                    """,
                    [
                        app, finding.code.rawValue, finding.severity.rawValue, finding.subject,
                        Self.subjectKey(finding), finding.detail, finding.window?.from.millisecondsSinceEpoch,
                        finding.window?.to.millisecondsSinceEpoch, instant.millisecondsSinceEpoch,
                        instant.millisecondsSinceEpoch, runID,
                    ])
            }
        }
    }

    func resolveFindings(app: String, notSeenInRun runID: Int64, at instant: Instant) throws(StoreError) -> Int {
        try sqlite { () throws -> Int in
            try connection.execute(
                """
                UPDATE findings SET resolved_at_ms = ?
                WHERE app = ? AND resolved_at_ms IS NULL AND last_run_id != ?
                """, [instant.millisecondsSinceEpoch, app, runID])
            return Int(try connection.queryInt64("SELECT changes()") ?? 0)
        }
    }

    func findings(app: String?, includeResolved: Bool, limit: Int, afterID: Int64?) throws(StoreError)
        -> [StoredFinding]
    {
        try sqlite { () throws -> [StoredFinding] in
            var rows: [StoredFinding] = []
            try connection.forEachRow(
                """
                SELECT id, app, code, severity, subject, detail, window_from_ms, window_to_ms, first_seen_at_ms,
                    last_seen_at_ms, last_run_id, resolved_at_ms
                FROM findings
                WHERE (? IS NULL OR app = ?) AND (? = 1 OR resolved_at_ms IS NULL) AND id > ?
                ORDER BY id LIMIT ?
                """, [app, app, includeResolved, afterID ?? 0, max(0, limit)]
            ) { (row) throws(SQLiteError) in
                rows.append(try FindingRow.decode(row))
            }
            return rows
        }
    }

    // MARK: Observed accounts

    /// The columns and erasure-job facts of ``observedAccounts(app:afterSubject:limit:)``; the caller adds the
    /// `WHERE` on the primary key and the `ORDER BY a.sub LIMIT ?`.
    private static let observedAccountColumns = """
        SELECT a.sub, a.state, a.deleted_at_ms, a.access_event_time_ms, a.access_input,
            (SELECT min(j.deadline_ms) FROM erasure_jobs j WHERE j.app = a.app AND j.sub = a.sub
                AND j.origin LIKE 'rules%' AND j.status IN ('scheduled', 'running')),
            (SELECT max(j.deadline_ms) FROM erasure_jobs j WHERE j.app = a.app AND j.sub = a.sub
                AND j.origin LIKE 'rules%' AND j.status != 'cancelled'),
            (SELECT group_concat(DISTINCT j.status) FROM erasure_jobs j WHERE j.app = a.app AND j.sub = a.sub
                AND j.origin LIKE 'rules%' AND j.status != 'cancelled')
        FROM accounts a
        """
    static let observedAccountsFirstPage =
        observedAccountColumns + " WHERE a.app = ? ORDER BY a.sub LIMIT ?"
    static let observedAccountsAfter =
        observedAccountColumns + " WHERE a.app = ? AND a.sub > ? ORDER BY a.sub LIMIT ?"

    /// One page of the service's view, ordered by `sub` in byte order (SQLite's BINARY collation). Erasure
    /// facts come from the jobs of the policy's erasure rules (`origin` `rules[…]`); retention purge jobs are
    /// years away by design and say nothing about whether erasure is late.
    ///
    /// Two statements, not one with `(? IS NULL OR a.sub > ?)`: with a bound parameter SQLite cannot drop the
    /// `OR` at prepare time, so it would use the primary key for `app = ?` only and walk every earlier account
    /// on every page, which makes a full walk quadratic (https://www.sqlite.org/optoverview.html#or_optimizations).
    /// `a.sub > ?` alone is a range search on the primary key (app, sub): each page costs the same.
    func observedAccounts(app: String, afterSubject: String?, limit: Int) throws(StoreError) -> [ObservedAccount] {
        try sqlite { () throws -> [ObservedAccount] in
            var rows: [ObservedAccount] = []
            let (sql, arguments): (String, [any SQLiteBindable]) =
                if let afterSubject {
                    (Self.observedAccountsAfter, [app, afterSubject, max(0, limit)])
                } else {
                    (Self.observedAccountsFirstPage, [app, max(0, limit)])
                }
            try connection.forEachRow(sql, arguments) { (row) throws(SQLiteError) in
                rows.append(try ObservedAccountRow.decode(row))
            }
            return rows
        }
    }

    /// Accounts that can still receive notifications (not deleted), for "how many could a gap have hit".
    func liveAccountCount(app: String) throws(StoreError) -> Int {
        try sqlite {
            Int(
                try connection.queryInt64(
                    "SELECT count(*) FROM accounts WHERE app = ? AND state != 'deleted'", [app]) ?? 0)
        }
    }
}
