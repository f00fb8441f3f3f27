import LifecycleCore
import LifecycleSQL

/// Reconcile runs, findings, and the service's view of each account for the merge, on PostgreSQL; every
/// query mirrors its ``SQLiteAccess`` twin. Optional parameters compared with `IS NULL` are cast to their
/// type, since PostgreSQL cannot infer a type from `$1 IS NULL` alone.
extension PostgresAccess {
    // MARK: Runs

    /// The partial unique index `reconcile_runs_one_running` is the lock: of two instances inserting a
    /// `running` row at once, the second waits for the first to commit and then inserts nothing.
    func beginReconcileRun(
        app: String?, owner: String, at instant: Instant, leaseUntil: Instant
    ) throws(StoreError) -> ReconcileRunClaim {
        try postgres { () throws -> ReconcileRunClaim in
            _ = try connection.query(
                """
                UPDATE reconcile_runs SET status = 'abandoned', finished_at_ms = $1, error = 'lease expired'
                WHERE status = 'running' AND leased_until_ms <= $1
                """, [instant.millisecondsSinceEpoch])
            // Each statement sees what committed before it (READ COMMITTED): a holder that finishes between the
            // insert and the read leaves no running row, and the insert is tried again.
            for _ in 0..<3 {
                if let id = try connection.queryInt64(
                    """
                    INSERT INTO reconcile_runs (app, status, owner, started_at_ms, leased_until_ms)
                    VALUES ($1, 'running', $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id
                    """, [app, owner, instant.millisecondsSinceEpoch, leaseUntil.millisecondsSinceEpoch])
                {
                    return .started(id: id)
                }
                if let holder = try connection.query(
                    "SELECT id, owner, started_at_ms, leased_until_ms FROM reconcile_runs WHERE status = 'running'"
                ).first {
                    return .busy(
                        ReconcileRunHolder(
                            id: holder.int64(0), owner: holder.text(1),
                            startedAt: Instant(millisecondsSinceEpoch: holder.int64(2)),
                            leasedUntil: Instant(millisecondsSinceEpoch: holder.int64(3))))
                }
            }
            throw PostgresError(sqlState: "55P03", message: "the reconcile lock changed hands three times; try again")
        }
    }

    func abandonReconcileRun(id: Int64, at instant: Instant, reason: String) throws(StoreError) -> Bool {
        try postgres {
            try connection.queryInt64(
                """
                UPDATE reconcile_runs SET status = 'abandoned', finished_at_ms = $1, error = $2
                WHERE id = $3 AND status = 'running' RETURNING 1
                """, [instant.millisecondsSinceEpoch, reason, id]) != nil
        }
    }

    func renewReconcileRun(id: Int64, leaseUntil: Instant) throws(StoreError) {
        try postgres {
            _ = try connection.query(
                "UPDATE reconcile_runs SET leased_until_ms = $1 WHERE id = $2 AND status = 'running'",
                [leaseUntil.millisecondsSinceEpoch, id])
        }
    }

    func finishReconcileRun(
        id: Int64, status: ReconcileRunStatus, at instant: Instant, summary: String?, error: String?
    ) throws(StoreError) {
        try postgres {
            _ = try connection.query(
                """
                UPDATE reconcile_runs SET status = $1, finished_at_ms = $2, summary = $3, error = $4
                WHERE id = $5 AND status = 'running'
                """, [status.rawValue, instant.millisecondsSinceEpoch, summary, error, id])
        }
    }

    func reconcileRuns(limit: Int) throws(StoreError) -> [StoredReconcileRun] {
        try postgres {
            try connection.query(
                """
                SELECT id, app, status, started_at_ms, finished_at_ms, summary, error
                FROM reconcile_runs ORDER BY id DESC LIMIT $1
                """, [max(0, limit)]
            ).map { row in
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
        try postgres {
            for finding in findings {
                _ = try connection.query(
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
                        SQLiteAccess.subjectKey(finding), finding.detail, finding.window?.from.millisecondsSinceEpoch,
                        finding.window?.to.millisecondsSinceEpoch, instant.millisecondsSinceEpoch,
                        instant.millisecondsSinceEpoch, runID,
                    ])
            }
        }
    }

    func resolveFindings(app: String, notSeenInRun runID: Int64, at instant: Instant) throws(StoreError) -> Int {
        try postgres {
            try connection.query(
                """
                UPDATE findings SET resolved_at_ms = $1
                WHERE app = $2 AND resolved_at_ms IS NULL AND last_run_id <> $3
                RETURNING 1
                """, [instant.millisecondsSinceEpoch, app, runID]
            ).count
        }
    }

    func findings(app: String?, includeResolved: Bool, limit: Int, afterID: Int64?) throws(StoreError)
        -> [StoredFinding]
    {
        try postgres { () throws -> [StoredFinding] in
            var rows: [StoredFinding] = []
            for row in try connection.query(
                """
                SELECT id, app, code, severity, subject, detail, window_from_ms, window_to_ms, first_seen_at_ms,
                    last_seen_at_ms, last_run_id, resolved_at_ms
                FROM findings
                WHERE ($1::text IS NULL OR app = $1) AND ($2::boolean OR resolved_at_ms IS NULL) AND id > $3
                ORDER BY id LIMIT $4
                """, [app, includeResolved, afterID ?? 0, max(0, limit)])
            {
                rows.append(try FindingRow.decode(row))
            }
            return rows
        }
    }

    // MARK: Observed accounts

    /// One page of the service's view, ordered by `sub` in byte order (`COLLATE "C"` in the schema).
    /// Erasure facts come from the jobs of the policy's erasure rules (`origin` `rules[…]`), as on SQLite.
    func observedAccounts(app: String, afterSubject: String?, limit: Int) throws(StoreError) -> [ObservedAccount] {
        try postgres { () throws -> [ObservedAccount] in
            var rows: [ObservedAccount] = []
            for row in try connection.query(
                """
                SELECT a.sub, a.state, a.deleted_at_ms, a.access_event_time_ms, a.access_input,
                    (SELECT min(j.deadline_ms) FROM erasure_jobs j WHERE j.app = a.app AND j.sub = a.sub
                        AND j.origin LIKE 'rules%' AND j.status IN ('scheduled', 'running')),
                    (SELECT max(j.deadline_ms) FROM erasure_jobs j WHERE j.app = a.app AND j.sub = a.sub
                        AND j.origin LIKE 'rules%' AND j.status <> 'cancelled'),
                    (SELECT string_agg(DISTINCT j.status, ',') FROM erasure_jobs j
                        WHERE j.app = a.app AND j.sub = a.sub AND j.origin LIKE 'rules%' AND j.status <> 'cancelled')
                FROM accounts a
                WHERE a.app = $1 AND ($2::text IS NULL OR a.sub > $2)
                ORDER BY a.sub LIMIT $3
                """, [app, afterSubject, max(0, limit)])
            {
                rows.append(try ObservedAccountRow.decode(row))
            }
            return rows
        }
    }

    /// Accounts that can still receive notifications (not deleted), for "how many could a gap have hit".
    func liveAccountCount(app: String) throws(StoreError) -> Int {
        try postgres {
            Int(
                try connection.queryInt64(
                    "SELECT count(*) FROM accounts WHERE app = $1 AND state <> 'deleted'", [app]) ?? 0)
        }
    }
}
