import LifecycleCore
import LifecycleEngine
import LifecycleSQL
import LifecycleStore

/// Writes the month of ``ReportBenchmarkPopulation`` into a migrated service store file: accounts, history,
/// the jobs the app's policy plans for each request with their steps' planted ends, request decisions, Apple
/// revocations, destroyed data keys and the last reconcile's findings.
///
/// Rows go in through one SQLite connection, prepared statements and one transaction per batch: going through
/// the store's writer would time the service's one-row-at-a-time ingest, which `bench ingest` measures, not
/// the report. Each job's `status` and `finished_at_ms` are what ``ErasureJob/status`` derives from its steps,
/// as the store caches them.
struct ReportBenchmarkStore {
    var population: ReportBenchmarkPopulation
    var policy: ErasurePolicy
    var reference: String
    var categories: [String: [String]]
    var masterKeyID: String?
    var batch: Int

    init(
        population: ReportBenchmarkPopulation, configuration: ServiceConfiguration, masterKeyID: String?, batch: Int
    ) throws {
        guard let app = configuration.apps.first(where: { $0.id == ReportBenchmark.appID }),
            let erasure = app.erasure, let policy = configuration.policies[erasure.policyID]
        else { throw BenchmarkError("the benchmark's configuration maps no erasure policy") }
        self.population = population
        self.policy = policy
        self.reference = PolicyLibrary.frozenReference(policy)
        self.categories = erasure.categories
        self.masterKeyID = masterKeyID
        self.batch = batch
    }

    struct Written {
        var jobs = 0
        var steps = 0
    }

    static let holdGrounds = "litigation hold: preservation order in a pending claim"
    static let extensionReason = "request needs records from an archived system; the person was told why"
    static let refusalBasis = "CCPA §1798.105(d)(1): needed to complete the transaction the consumer asked for"

    func write(path: String) throws -> Written {
        let connection = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 5000)
        defer { connection.close() }
        // Setup only: the run reads the file after it is closed, so losing it to a crash loses a scratch file.
        try connection.execute("PRAGMA synchronous = OFF")
        var written = Written()
        var jobID: Int64 = 0
        var start = 0
        while start < population.count {
            let end = min(population.count, start + batch)
            try connection.execute("BEGIN")
            for index in start..<end {
                try writeRequest(index, connection: connection, jobID: &jobID, written: &written)
            }
            try connection.execute("COMMIT")
            start = end
        }
        try writeFindings(connection: connection)
        return written
    }

    private func writeRequest(
        _ index: Int, connection: SQLiteConnection, jobID: inout Int64, written: inout Written
    ) throws {
        let app = ReportBenchmark.appID
        let subject = population.subject(index)
        let trigger = population.trigger(index)
        let eventTime = population.eventTime(index)
        let receivedAt = population.receivedAt(index)
        let fate = population.fate(index)
        let kind: AccountInputKind =
            switch trigger {
            case .accountDeleted: .accountDeleted
            case .inAppDeletion: .inAppDeletion
            case .consentRevoked: .consentRevoked
            }
        let deleted = trigger != .consentRevoked
        let signedUp = eventTime.adding(seconds: -86_400 * (30 + Int64(index % 700)))
        try connection.execute(
            """
            INSERT INTO accounts (app, sub, state, last_applied_event_time_ms, email_forwarding,
                email_forwarding_event_time_ms, email_forwarding_input, access_event_time_ms, access_input,
                created_at_ms, updated_at_ms, deleted_at_ms, deleted_by)
            VALUES (?1, ?2, ?3, ?4, 1, NULL, NULL, ?5, ?6, ?7, ?8, ?9, ?10)
            """,
            [
                app, subject, deleted ? "deleted" : "consent-revoked", eventTime.millisecondsSinceEpoch,
                deleted ? nil : eventTime.millisecondsSinceEpoch, deleted ? nil : kind.canonicalName,
                signedUp.millisecondsSinceEpoch, receivedAt.millisecondsSinceEpoch,
                deleted ? eventTime.millisecondsSinceEpoch : nil, deleted ? kind.canonicalName : nil,
            ])
        let history = """
            INSERT INTO account_history (app, sub, input_kind, identity, event_time_ms, received_at_ms, disposition,
                reason, from_state, to_state, effects, source)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8, ?9, '', ?10)
            """
        try connection.execute(
            history,
            [
                app, subject, AccountInputKind.linked.canonicalName, "bench-\(index)-linked",
                signedUp.millisecondsSinceEpoch, signedUp.millisecondsSinceEpoch, "applied", String?.none, "linked",
                "notification",
            ])
        let toState = deleted ? "deleted" : "consent-revoked"
        try connection.execute(
            history,
            [
                app, subject, kind.canonicalName, "bench-\(index)", eventTime.millisecondsSinceEpoch,
                receivedAt.millisecondsSinceEpoch, "applied", "linked", toState,
                trigger == .inAppDeletion ? "admin" : "notification",
            ])
        if population.hasDuplicate(index) {
            try connection.execute(
                history,
                [
                    app, subject, kind.canonicalName, "bench-\(index)", eventTime.millisecondsSinceEpoch,
                    receivedAt.adding(seconds: 60).millisecondsSinceEpoch, "duplicate", toState, toState,
                    "notification",
                ])
        }

        let plan = ErasurePlanner.plan(
            policy: policy, policyReference: reference, categoryTargets: categories, trigger: trigger,
            eventTime: eventTime)
        let request = DeletionRequestKey(app: app, subject: subject, trigger: trigger, eventTime: eventTime)
        let decidedAt = eventTime.adding(seconds: 3 * 86_400)
        var selfDone: Instant? = nil
        for var job in plan.jobs {
            var cancel: (at: Instant, reason: String)? = nil
            switch fate {
            case .extended:
                let extended = job.deadline.adding(seconds: 60 * 86_400)
                try decision(
                    request, kind: "extension", reason: Self.extensionReason, noticeAt: decidedAt,
                    previous: job.deadline, new: extended, connection: connection)
                job.deadline = extended
            case .held:
                try decision(request, kind: "hold", reason: Self.holdGrounds, connection: connection)
            case .denied:
                try decision(request, kind: "refusal", reason: Self.refusalBasis, connection: connection)
                cancel = (decidedAt, "refused: \(Self.refusalBasis)")
            case .onTime, .late, .failed, .retrying, .unverified: break
            }
            let steps = job.targets.enumerated().map { ordinal, target in
                step(index, ordinal: ordinal, target: target, job: job, fate: fate, plannedDeadline: job.deadline)
            }
            if let done = steps.last(where: { $0.target == ErasurePlanner.selfTarget && $0.status == .done }) {
                selfDone = done.finishedAt
            }
            jobID += 1
            try insertJob(
                id: jobID, subject: subject, plan: job, steps: steps, cancel: cancel, createdAt: receivedAt,
                connection: connection)
            written.jobs += 1
            written.steps += steps.count
        }
        for retention in plan.retentions {
            let purge = retention.purgeJob(categoryTargets: categories)
            jobID += 1
            try insertJob(
                id: jobID, subject: subject, plan: purge,
                steps: purge.targets.map { ErasureStep(target: $0, notBefore: purge.notBefore) }, cancel: nil,
                createdAt: receivedAt, connection: connection)
            written.jobs += 1
            written.steps += purge.targets.count
        }
        if trigger == .inAppDeletion {
            let noToken = population.revocationHadNoToken(index)
            let revoked = receivedAt.adding(seconds: 30)
            try connection.execute(
                """
                INSERT INTO apple_revocations (app, sub, status, attempts, revokes, requested_at_ms, available_at_ms,
                    revoked_at_ms, verified_at_ms, finished_at_ms, last_error)
                VALUES (?1, ?2, ?3, 1, ?4, ?5, ?5, ?6, ?7, ?8, NULL)
                """,
                [
                    app, subject, noToken ? "no-token" : "verified", noToken ? 0 : 1,
                    receivedAt.millisecondsSinceEpoch, noToken ? nil : revoked.millisecondsSinceEpoch,
                    noToken ? nil : revoked.adding(seconds: 5).millisecondsSinceEpoch,
                    revoked.adding(seconds: 5).millisecondsSinceEpoch,
                ])
        }
        if let masterKeyID, let selfDone {
            try connection.execute(
                """
                INSERT INTO subject_keys (app, sub, scope, wrapped_key, master_key_id, created_at_ms, destroyed_at_ms)
                VALUES (?1, ?2, 'notifications', NULL, ?3, ?4, ?5)
                """,
                [app, subject, masterKeyID, signedUp.millisecondsSinceEpoch, selfDone.millisecondsSinceEpoch])
        }
    }

    /// A step's planted end: finished a day or two after the job became due, or late, failed after its
    /// retries, still retrying, unproven, or never started (held, refused).
    private func step(
        _ index: Int, ordinal: Int, target: String, job: ErasureJobPlan, fate: ReportBenchmarkPopulation.Fate,
        plannedDeadline: Instant
    ) -> ErasureStep {
        let isSelf = target == ErasurePlanner.selfTarget
        let onTime = job.notBefore.adding(seconds: 3600 * population.hoursToFinish(index, step: ordinal))
        func done(_ at: Instant) -> ErasureStep {
            ErasureStep(
                target: target, status: .done, attempts: 1, nextAttemptAt: nil, lastAttemptAt: at, finishedAt: at,
                evidence: isSelf
                    ? ErasureStepEvidence(keysDestroyed: 1)
                    : ErasureStepEvidence(rowsAffected: 1 + index % 5, verificationCount: 0))
        }
        let untouched = ErasureStep(target: target, notBefore: job.notBefore)
        switch fate {
        case .onTime, .extended: return done(onTime)
        case .late:
            return done(
                plannedDeadline.adding(seconds: 86_400 * population.daysLate(index) + 3600 * Int64(ordinal)))
        case .held, .denied: return untouched
        case .failed, .retrying, .unverified:
            // The app's database is the step that goes wrong; the service's own copies wait for it.
            guard !isSelf else { return untouched }
            let last = onTime.adding(seconds: 6 * 3600)
            switch fate {
            case .failed:
                return ErasureStep(
                    target: target, status: .failed, attempts: 8, nextAttemptAt: nil, lastAttemptAt: last,
                    finishedAt: last, evidence: ErasureStepEvidence(errorCode: .sqliteBusy))
            case .retrying:
                return ErasureStep(
                    target: target, status: .pending, attempts: 5, nextAttemptAt: ReportBenchmark.generatedAt,
                    lastAttemptAt: last, finishedAt: nil, evidence: ErasureStepEvidence(errorCode: .sqliteBusy))
            default:
                return ErasureStep(
                    target: target, status: .unverified, attempts: 1, nextAttemptAt: nil, lastAttemptAt: onTime,
                    finishedAt: onTime, evidence: ErasureStepEvidence(rowsAffected: 1, verificationCount: 1))
            }
        }
    }

    private func insertJob(
        id: Int64, subject: String, plan: ErasureJobPlan, steps: [ErasureStep], cancel: (at: Instant, reason: String)?,
        createdAt: Instant, connection: SQLiteConnection
    ) throws {
        let job = ErasureJob(plan: plan, steps: steps, cancelledAt: cancel?.at)
        try connection.execute(
            """
            INSERT INTO erasure_jobs (id, app, sub, trigger, event_time_ms, policy_reference, origin, categories,
                not_before_ms, deadline_ms, cancel_if_relinked, basis, status, created_at_ms, finished_at_ms,
                cancelled_at_ms, cancel_reason)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
            """,
            [
                id, ReportBenchmark.appID, subject, plan.trigger.canonicalName, plan.eventTime.millisecondsSinceEpoch,
                plan.policyReference, plan.origin.path, plan.categories.map(\.canonicalName).joined(separator: ","),
                plan.notBefore.millisecondsSinceEpoch, plan.deadline.millisecondsSinceEpoch, plan.cancelIfRelinked,
                plan.basis, job.status.rawValue, createdAt.millisecondsSinceEpoch,
                (cancel?.at ?? job.finishedAt)?.millisecondsSinceEpoch, cancel?.at.millisecondsSinceEpoch,
                cancel?.reason,
            ])
        for (ordinal, step) in steps.enumerated() {
            try connection.execute(
                """
                INSERT INTO erasure_steps (job_id, ordinal, target, status, attempts, next_attempt_at_ms,
                    started_at_ms, last_attempt_at_ms, finished_at_ms, rows_affected, verification_count,
                    response_status, error_code, keys_destroyed)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                """,
                [
                    id, ordinal, step.target, step.status.canonicalName, step.attempts,
                    step.nextAttemptAt?.millisecondsSinceEpoch, step.lastAttemptAt?.millisecondsSinceEpoch,
                    step.lastAttemptAt?.millisecondsSinceEpoch, step.finishedAt?.millisecondsSinceEpoch,
                    step.evidence.rowsAffected, step.evidence.verificationCount, step.evidence.responseStatus,
                    step.evidence.errorCode?.rawValue, step.evidence.keysDestroyed,
                ])
        }
    }

    private func decision(
        _ request: DeletionRequestKey, kind: String, reason: String, noticeAt: Instant? = nil,
        previous: Instant? = nil, new: Instant? = nil, connection: SQLiteConnection
    ) throws {
        try connection.execute(
            """
            INSERT INTO request_decisions (app, sub, trigger, event_time_ms, kind, reason, notice_at_ms,
                previous_deadline_ms, new_deadline_ms, recorded_at_ms)
            SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
            WHERE NOT EXISTS (SELECT 1 FROM request_decisions WHERE app = ?1 AND sub = ?2 AND trigger = ?3
                AND event_time_ms = ?4 AND kind = ?5)
            """,
            [
                request.app, request.subject, request.trigger.canonicalName, request.eventTime.millisecondsSinceEpoch,
                kind, reason, noticeAt?.millisecondsSinceEpoch, previous?.millisecondsSinceEpoch,
                new?.millisecondsSinceEpoch, request.eventTime.adding(seconds: 3 * 86_400).millisecondsSinceEpoch,
            ])
    }

    /// The last reconcile run, completed the day before the report, with a finding for a sample of the failed
    /// and overdue requests (the store keeps each finding once per subject and code).
    private func writeFindings(connection: SQLiteConnection) throws {
        let ranAt = ReportBenchmark.generatedAt.adding(seconds: -86_400)
        try connection.execute("BEGIN")
        try connection.execute(
            """
            INSERT INTO reconcile_runs (id, app, status, owner, started_at_ms, leased_until_ms, finished_at_ms)
            VALUES (1, ?1, 'completed', 'bench', ?2, ?2, ?3)
            """,
            [ReportBenchmark.appID, ranAt.adding(seconds: -600).millisecondsSinceEpoch, ranAt.millisecondsSinceEpoch])
        for index in 0..<population.count where population.hasFinding(index) {
            let code: FindingCode = population.fate(index) == .failed ? .erasureFailed : .erasureOverdue
            let subject = population.subject(index)
            try connection.execute(
                """
                INSERT INTO findings (app, code, severity, subject, subject_key, detail, first_seen_at_ms,
                    last_seen_at_ms, last_run_id)
                VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?6, 1)
                """,
                [
                    ReportBenchmark.appID, code.rawValue, code.severity.rawValue, subject,
                    code == .erasureFailed ? "erasure job failed after its retries" : "erasure past its deadline",
                    ranAt.millisecondsSinceEpoch,
                ])
        }
        try connection.execute("COMMIT")
    }
}
