import LifecycleCore
import LifecycleSQL

/// Scheduled erasure jobs and their steps (DESIGN.md §7).
///
/// Claims follow the outbox's pattern (``StoreAccess/claimOutbox(now:owner:leaseUntil:limit:)``): the due
/// steps are picked in a materialized CTE and leased by the same statement whose `WHERE` holds the lease
/// test, so no other runner, in this process or another, can lease the same step between the test and the
/// update (SQLite: the single write lock; PostgreSQL: ``SQLDialect/skipLocked(of:)``). A job's status column
/// is never written directly: after every step change the job is loaded as the LifecycleCore ``ErasureJob``
/// value and its derived status is stored.
extension StoreAccess {
    private func steps(jobID: Int64) throws -> [(ErasureStep, Instant?)] {
        try connection.fetchAll(
            "SELECT \(ErasureJobRow.stepColumns) FROM erasure_steps WHERE job_id = $1 ORDER BY ordinal", [jobID]
        ) { row in
            let decoded = try ErasureJobRow.decodeStep(row)
            return (decoded.step, decoded.startedAt)
        }
    }

    private func assemble(_ row: ErasureJobRow) throws -> StoredErasureJob {
        let steps = try steps(jobID: row.id)
        var plan = row.plan
        plan.targets = steps.map(\.0.target)
        return StoredErasureJob(
            id: row.id, app: row.app, subject: row.subject,
            job: ErasureJob(plan: plan, steps: steps.map(\.0), cancelledAt: row.cancelledAt),
            createdAt: row.createdAt, cancelReason: row.cancelReason, stepsStartedAt: steps.map(\.1))
    }

    private func loadJob(id: Int64) throws -> StoredErasureJob? {
        try loadJobs("SELECT \(ErasureJobRow.columns) FROM erasure_jobs WHERE id = $1", [id]).first
    }

    /// The job rows are read to the end before their steps are: each job's steps are another statement.
    private func loadJobs(_ sql: String, _ arguments: [any SQLBindable]) throws -> [StoredErasureJob] {
        let rows = try connection.fetchAll(sql, arguments) { row in try ErasureJobRow.decode(row) }
        var jobs: [StoredErasureJob] = []
        for row in rows { jobs.append(try assemble(row)) }
        return jobs
    }

    /// Stores the status and finish time the job value derives from its steps.
    private func storeDerivedStatus(_ job: StoredErasureJob) throws {
        try connection.run(
            "UPDATE erasure_jobs SET status = $1, finished_at_ms = $2 WHERE id = $3",
            [job.job.status.rawValue, job.job.finishedAt?.millisecondsSinceEpoch, job.id])
    }

    // MARK: Reading

    func erasureJob(id: Int64) throws(StoreError) -> StoredErasureJob? {
        try sql { try loadJob(id: id) }
    }

    func erasureJobs(status: ErasureJobStatus?, limit: Int, afterID: Int64?) throws(StoreError) -> [StoredErasureJob] {
        try sql { () throws -> [StoredErasureJob] in
            let after = afterID ?? Int64.min
            if let status {
                return try loadJobs(
                    "SELECT \(ErasureJobRow.columns) FROM erasure_jobs WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3",
                    [status.rawValue, after, max(0, limit)])
            }
            return try loadJobs(
                "SELECT \(ErasureJobRow.columns) FROM erasure_jobs WHERE id > $1 ORDER BY id LIMIT $2",
                [after, max(0, limit)])
        }
    }

    func erasureJobs(app: String, subject: String) throws(StoreError) -> [StoredErasureJob] {
        try sql {
            try loadJobs(
                "SELECT \(ErasureJobRow.columns) FROM erasure_jobs WHERE app = $1 AND sub = $2 ORDER BY id",
                [app, subject])
        }
    }

    /// The jobs of every account of `app` whose `sub` lies in `[fromSubject, throughSubject]`, by `sub` then
    /// id: two range statements (jobs by `erasure_jobs_account`, their steps by primary key) for a whole page
    /// of accounts, for the report's collect stage.
    func erasureJobs(
        app: String, fromSubject: String, throughSubject: String
    ) throws(StoreError) -> [StoredErasureJob] {
        try sql { () throws -> [StoredErasureJob] in
            let rows = try connection.fetchAll(
                """
                SELECT \(ErasureJobRow.columns) FROM erasure_jobs
                WHERE app = $1 AND sub >= $2 AND sub <= $3 ORDER BY sub, id
                """, [app, fromSubject, throughSubject]
            ) { row in try ErasureJobRow.decode(row) }
            var steps: [Int64: [(ErasureStep, Instant?)]] = [:]
            try connection.fetchEach(
                """
                SELECT \(ErasureJobRow.stepColumns), job_id FROM erasure_steps
                WHERE job_id IN (SELECT id FROM erasure_jobs WHERE app = $1 AND sub >= $2 AND sub <= $3)
                ORDER BY job_id, ordinal
                """, [app, fromSubject, throughSubject]
            ) { row in
                let decoded = try ErasureJobRow.decodeStep(row)
                steps[row.int64(14), default: []].append((decoded.step, decoded.startedAt))
            }
            return rows.map { row in
                let jobSteps = steps[row.id] ?? []
                var plan = row.plan
                plan.targets = jobSteps.map(\.0.target)
                return StoredErasureJob(
                    id: row.id, app: row.app, subject: row.subject,
                    job: ErasureJob(plan: plan, steps: jobSteps.map(\.0), cancelledAt: row.cancelledAt),
                    createdAt: row.createdAt, cancelReason: row.cancelReason, stepsStartedAt: jobSteps.map(\.1))
            }
        }
    }

    func erasureJobCounts() throws(StoreError) -> [ErasureJobStatus: Int] {
        try sql { () throws -> [ErasureJobStatus: Int] in
            var counts = Dictionary(uniqueKeysWithValues: ErasureJobStatus.allCases.map { ($0, 0) })
            try connection.fetchEach("SELECT status, count(*) FROM erasure_jobs GROUP BY status", []) { row in
                guard let status = ErasureJobStatus(rawValue: row.text(0)) else {
                    throw Row.unreadable("erasure_jobs", "status")
                }
                counts[status] = row.int(1)
            }
            return counts
        }
    }

    /// `target` and `status` compare in byte order on both databases (`COLLATE "C"` on PostgreSQL).
    func erasureStepCounts() throws(StoreError) -> [ErasureStepCount] {
        try sql {
            try connection.fetchAll(
                "SELECT target, status, count(*) FROM erasure_steps GROUP BY target, status ORDER BY target, status"
            ) { row in
                guard let status = ErasureStepStatus(canonicalName: row.text(1)) else {
                    throw Row.unreadable("erasure_steps", "status")
                }
                return ErasureStepCount(target: row.text(0), status: status, count: row.int(2))
            }
        }
    }

    func overdueErasureJobCount(now: Instant) throws(StoreError) -> Int {
        try sql {
            Int(
                try connection.fetchInt64(
                    """
                    SELECT count(*) FROM erasure_jobs
                    WHERE status NOT IN ('completed', 'cancelled') AND deadline_ms < $1
                    """,
                    [now.millisecondsSinceEpoch]) ?? 0)
        }
    }

    func erasureJobsAwaitingCallback(since cutoff: Instant, limit: Int) throws(StoreError) -> [StoredErasureJob] {
        try sql {
            try loadJobs(
                """
                SELECT \(ErasureJobRow.columns) FROM erasure_jobs
                WHERE cancelled_at_ms IS NULL AND id IN (
                    SELECT job_id FROM erasure_steps WHERE status = 'waiting-callback' AND last_attempt_at_ms <= $1)
                ORDER BY id LIMIT $2
                """, [cutoff.millisecondsSinceEpoch, max(0, limit)])
        }
    }

    // MARK: Writing

    func insertErasureJob(app: String, subject: String, plan: ErasureJobPlan, createdAt: Instant) throws(StoreError)
        -> Int64
    {
        try sql { () throws -> Int64 in
            let status = ErasureJob(plan: plan).status
            guard
                let id = try connection.fetchInt64(
                    """
                    INSERT INTO erasure_jobs (
                        app, sub, trigger, event_time_ms, policy_reference, origin, categories, not_before_ms,
                        deadline_ms, cancel_if_relinked, basis, status, created_at_ms
                    ) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
                    RETURNING id
                    """,
                    [
                        app, subject, plan.trigger.canonicalName, plan.eventTime.millisecondsSinceEpoch,
                        plan.policyReference, plan.origin.path,
                        plan.categories.map(\.canonicalName).joined(separator: ","),
                        plan.notBefore.millisecondsSinceEpoch, plan.deadline.millisecondsSinceEpoch,
                        plan.cancelIfRelinked, plan.basis, status.rawValue, createdAt.millisecondsSinceEpoch,
                    ])
            else { throw Connection.failure("erasure job insert returned no id") }
            for (ordinal, target) in plan.targets.enumerated() {
                try connection.run(
                    """
                    INSERT INTO erasure_steps (job_id, ordinal, target, status, attempts, next_attempt_at_ms)
                    VALUES ($1, $2, $3, 'pending', 0, $4)
                    """, [id, ordinal, target, plan.notBefore.millisecondsSinceEpoch])
            }
            return id
        }
    }

    /// The claim of due steps: `$1` owner, `$2` lease end, `$3` now, `$4` the `self` target, `$5` limit.
    ///
    /// It walks the open jobs in deadline order (`erasure_jobs_open`, pinned on SQLite; walked in index order on
    /// PostgreSQL, ``SQLDialect/indexOrderWalk``) and stops at `limit` due steps, so a claim costs about the
    /// same whatever the backlog. Ordered by the jobs' deadline after a join instead, each claim collected and
    /// sorted every due step: draining N steps in claims of `limit` cost N²/`limit`, which a mass deletion
    /// after an outage, or a store seeded with half a million erased accounts, turned into hours.
    static var claimErasureStepsSQL: String {
        """
        WITH picked AS MATERIALIZED (
            SELECT s.job_id, s.ordinal FROM erasure_jobs AS j\(Connection.dialect.indexedBy("erasure_jobs_open"))
            JOIN erasure_steps AS s ON s.job_id = j.id
            WHERE j.\(StoreSchema.openJobStatuses) AND j.cancelled_at_ms IS NULL
                AND ((s.status = 'pending' AND s.next_attempt_at_ms <= $3)
                    OR (s.status = 'running' AND s.leased_until_ms <= $3))
                AND (s.target <> $4 OR NOT EXISTS (
                    SELECT 1 FROM erasure_steps AS other
                    WHERE other.job_id = s.job_id AND other.target <> $4
                        AND other.status NOT IN ('done', 'failed', 'unverified')))
                AND (s.target <> $4 OR NOT EXISTS (
                    SELECT 1 FROM apple_revocations AS r
                    WHERE r.app = j.app AND r.sub = j.sub AND r.status = 'pending'))
                AND NOT EXISTS (
                    SELECT 1 FROM request_decisions AS h
                    WHERE h.app = j.app AND h.sub = j.sub AND h.trigger = j.trigger
                        AND h.event_time_ms = j.event_time_ms AND h.kind = 'hold' AND h.released_at_ms IS NULL)
            ORDER BY j.deadline_ms, j.id, s.ordinal
            LIMIT $5\(Connection.dialect.skipLocked(of: "s")))
        UPDATE erasure_steps SET status = 'running', attempts = attempts + 1, lease_owner = $1,
            leased_until_ms = $2, last_attempt_at_ms = $3,
            started_at_ms = coalesce(erasure_steps.started_at_ms, $3), next_attempt_at_ms = NULL
        FROM picked
        WHERE erasure_steps.job_id = picked.job_id AND erasure_steps.ordinal = picked.ordinal
        RETURNING erasure_steps.job_id, erasure_steps.ordinal
        """
    }

    func claimErasureSteps(
        now: Instant, owner: String, leaseUntil: Instant, limit: Int
    ) throws(StoreError) -> [ClaimedErasureStep] {
        guard limit > 0 else { return [] }
        return try sql { () throws -> [ClaimedErasureStep] in
            let claimed = try walkingIndexOrder {
                try connection.fetchAll(
                    Self.claimErasureStepsSQL,
                    [
                        owner, leaseUntil.millisecondsSinceEpoch, now.millisecondsSinceEpoch,
                        ErasurePlanner.selfTarget, limit,
                    ]
                ) { row in (row.int64(0), row.int(1)) }
            }
            var result: [ClaimedErasureStep] = []
            for (jobID, ordinal) in claimed.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) {
                guard let job = try loadJob(id: jobID) else { continue }
                try storeDerivedStatus(job)
                result.append(ClaimedErasureStep(job: job, stepIndex: ordinal))
            }
            return result
        }
    }

    func recordErasureStep(
        jobID: Int64, index: Int, step: ErasureStep, owner: String?, at instant: Instant
    ) throws(StoreError) -> StoredErasureJob? {
        try sql { () throws -> StoredErasureJob? in
            let guardClause =
                owner == nil
                ? "status = 'waiting-callback'" : "status = 'running' AND lease_owner = $14"
            let evidence = step.evidence
            var arguments: [any SQLBindable] = [
                step.status.canonicalName, step.attempts, step.nextAttemptAt?.millisecondsSinceEpoch,
                step.lastAttemptAt?.millisecondsSinceEpoch, step.finishedAt?.millisecondsSinceEpoch,
                evidence.rowsAffected, evidence.verificationCount, evidence.responseStatus,
                evidence.errorCode?.rawValue,
                jobID, index, evidence.keysDestroyed, evidence.hygiene,
            ]
            if let owner { arguments.append(owner) }
            let updated = try connection.fetchCount(
                """
                UPDATE erasure_steps SET status = $1, attempts = $2, next_attempt_at_ms = $3, last_attempt_at_ms = $4,
                    finished_at_ms = $5, rows_affected = $6, verification_count = $7, response_status = $8,
                    error_code = $9, keys_destroyed = $12, hygiene = $13, leased_until_ms = NULL
                WHERE job_id = $10 AND ordinal = $11 AND \(guardClause)
                RETURNING 1
                """, arguments)
            guard updated > 0, let job = try loadJob(id: jobID) else { return nil }
            try storeDerivedStatus(job)
            return job
        }
    }

    func retryErasureJob(id: Int64, now: Instant) throws(StoreError) -> Int {
        try sql { () throws -> Int in
            let reset = try connection.fetchCount(
                """
                UPDATE erasure_steps SET status = 'pending', attempts = 0, next_attempt_at_ms = $1,
                    finished_at_ms = NULL, lease_owner = NULL, leased_until_ms = NULL
                WHERE job_id = $2 AND status IN ('failed', 'unverified')
                    AND EXISTS (SELECT 1 FROM erasure_jobs WHERE id = $2 AND cancelled_at_ms IS NULL)
                RETURNING 1
                """, [now.millisecondsSinceEpoch, id])
            if reset > 0, let job = try loadJob(id: id) { try storeDerivedStatus(job) }
            return reset
        }
    }

    func cancelErasureJobsForRelink(
        app: String, subject: String, at instant: Instant, reason: String
    ) throws(StoreError) -> [Int64] {
        try sql { () throws -> [Int64] in
            var cancelled: [Int64] = []
            for stored in try loadJobs(
                """
                SELECT \(ErasureJobRow.columns) FROM erasure_jobs
                WHERE app = $1 AND sub = $2 AND status NOT IN ('completed', 'failed', 'cancelled', 'unverified')
                ORDER BY id
                """, [app, subject])
            {
                var job = stored.job
                guard job.cancelForRelink(at: instant) else { continue }
                try connection.run(
                    """
                    UPDATE erasure_jobs SET status = 'cancelled', cancelled_at_ms = $1, finished_at_ms = $1,
                        cancel_reason = $2
                    WHERE id = $3
                    """, [instant.millisecondsSinceEpoch, reason, stored.id])
                try connection.run(
                    "UPDATE erasure_steps SET lease_owner = NULL, leased_until_ms = NULL WHERE job_id = $1", [stored.id]
                )
                cancelled.append(stored.id)
            }
            return cancelled
        }
    }
}
