import Foundation
import LifecycleCore
import LifecycleSQL
import LifecycleStore
import Synchronization

/// Runs due erasure steps (DESIGN.md §7): claims them with a lease (so two runners, in one process or in
/// several on one database, never execute the same step), executes one step per target, records the evidence,
/// and lets the LifecycleCore ``ErasureStep`` value decide what follows (done, retry with backoff, failed,
/// waiting for a callback, unverified). `self` runs last: the claim offers it only once every other step of its
/// job is final.
///
/// Runs inside `serve` as a background loop (``run()``) and from cron as `lifecycle jobs run --once`
/// (``runOnce()``).
public final class ErasureJobRunner: Sendable {
    /// The configuration the runner works under and the apps' webhook signing secrets.
    public typealias Settings = (configuration: ServiceConfiguration, webhookSigners: [String: WebhookSigner])

    public let store: any Store
    public let log: EventLog
    public let metrics: MetricsRegistry
    let instruments: ErasureMetrics
    public let clock: any LifecycleClock
    /// Identifies this runner in leases.
    public let owner: String
    /// Read once per round (and per callback), so a reload of `serve` applies from the next round on.
    private let settings: @Sendable () -> Settings
    /// A value in `[0, 1)` for the retry jitter; injected so tests replay exactly.
    private let random: @Sendable () -> Double

    /// The configuration in force.
    public var configuration: ServiceConfiguration { settings().configuration }

    package init(
        settings: @escaping @Sendable () -> Settings, store: any Store, log: EventLog, metrics: MetricsRegistry,
        clock: any LifecycleClock, owner: String, random: @escaping @Sendable () -> Double
    ) {
        self.settings = settings
        self.store = store
        self.log = log
        self.metrics = metrics
        self.clock = clock
        self.owner = owner
        self.random = random
        instruments = ErasureMetrics(metrics)
    }

    /// A runner under one fixed configuration (`lifecycle jobs`, tests).
    public convenience init(
        configuration: ServiceConfiguration, store: any Store, log: EventLog, metrics: MetricsRegistry,
        clock: any LifecycleClock, owner: String, webhookSigners: [String: WebhookSigner],
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.init(
            settings: { (configuration, webhookSigners) }, store: store, log: log, metrics: metrics, clock: clock,
            owner: owner, random: random)
    }

    /// A runner under the configuration in force in `context`, which `serve` replaces on SIGHUP.
    public convenience init(
        context: ServiceContext, owner: String, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.init(
            settings: {
                let active = context.current
                return (active.configuration, active.webhookSigners)
            }, store: context.store, log: context.log, metrics: context.metrics, clock: context.clock, owner: owner,
            random: random)
    }

    /// What one ``runOnce()`` did.
    public struct Summary: Sendable, Hashable {
        /// Attempts executed, by the step status they left.
        public var attempts: [ErasureStepStatus: Int] = [:]
        public var total: Int { attempts.values.reduce(0, +) }
    }

    /// Ends callbacks that never came, then executes every step due now, round after round (a finished app
    /// target can make `self` due), until a claim finds nothing. Each step's attempts are bounded by the retry
    /// schedule, so this ends. A cancelled task (``run()`` when `serve` stops) stops claiming after the step in
    /// hand, so a long backlog does not hold up shutdown: what is left stays due for the next run or instance.
    @discardableResult
    public func runOnce() async throws -> Summary {
        let settings = settings()
        let configuration = settings.configuration
        var summary = Summary()
        for status in try await expireCallbacks(configuration) { summary.attempts[status, default: 0] += 1 }
        while !Task.isCancelled {
            let now = clock.now()
            let leaseUntil = now.adding(milliseconds: Int64(configuration.erasure.leaseSeconds) * 1000)
            let owner = owner
            let limit = configuration.erasure.batchSize
            let claimed = try await store.write { writer in
                try writer.claimErasureSteps(now: now, owner: owner, leaseUntil: leaseUntil, limit: limit)
            }
            if claimed.isEmpty { break }
            for claim in claimed {
                let status = try await execute(claim, settings)
                summary.attempts[status, default: 0] += 1
            }
            try await removeRemnants()
        }
        try await removeRemnants()
        try await refreshGauges()
        return summary
    }

    /// The background loop of `serve` and `lifecycle jobs run`: ``runOnce()`` every `erasure.pollMilliseconds`
    /// until cancelled, in the rounds where `enabled` holds (`serve`: `erasure.runInServe` of the configuration
    /// in force). A store failure is logged and retried on the next round.
    public func run(enabled: @Sendable () -> Bool = { true }) async {
        while !Task.isCancelled {
            if enabled() {
                do {
                    try await runOnce()
                } catch {
                    log.log(.error, "erasure.run_failed", [("error", .string(String(describing: error)))])
                }
            }
            try? await Task.sleep(for: .milliseconds(configuration.erasure.pollMilliseconds))
        }
    }

    /// Steps waiting longer than `erasure.callbackTimeoutSeconds` for their callback end `unverified`: the
    /// target acknowledged the request but never confirmed the erasure.
    private func expireCallbacks(_ configuration: ServiceConfiguration) async throws -> [ErasureStepStatus] {
        let now = clock.now()
        let cutoff = now.adding(milliseconds: -Int64(configuration.erasure.callbackTimeoutSeconds) * 1000)
        let limit = configuration.erasure.batchSize
        let jobs = try await store.read { reader in try reader.erasureJobsAwaitingCallback(since: cutoff, limit: limit)
        }
        var statuses: [ErasureStepStatus] = []
        for stored in jobs {
            for index in stored.job.steps.indices {
                let waiting = stored.job.steps[index]
                guard waiting.status == .waitingCallback, let last = waiting.lastAttemptAt, last <= cutoff else {
                    continue
                }
                var job = stored.job
                _ = job.record(
                    stepResult: .callbackTimedOut, step: index, at: now, retry: configuration.erasure.retrySchedule,
                    random: random())
                let step = job.steps[index]
                let saved = try await store.write { writer in
                    try writer.recordErasureStep(jobID: stored.id, index: index, step: step, owner: nil, at: now)
                }
                observe(step: step, target: step.target, job: saved, app: stored.app, subject: stored.subject)
                statuses.append(step.status)
            }
        }
        return statuses
    }

    /// Executes one claimed step and stores its result; returns the status the step was left in.
    private func execute(_ claim: ClaimedErasureStep, _ settings: Settings) async throws -> ErasureStepStatus {
        let configuration = settings.configuration
        let stored = claim.job
        let target = claim.step.target
        let result = await attempt(claim, settings)
        let now = clock.now()
        var job = stored.job
        _ = job.record(
            stepResult: result, step: claim.stepIndex, at: now, retry: configuration.erasure.retrySchedule,
            random: random())
        let step = job.steps[claim.stepIndex]
        let (jobID, index, owner) = (stored.id, claim.stepIndex, owner)
        let saved = try await store.write { writer in
            try writer.recordErasureStep(jobID: jobID, index: index, step: step, owner: owner, at: now)
        }
        observe(step: step, target: target, job: saved, app: stored.app, subject: stored.subject)
        return step.status
    }

    private func observe(step: ErasureStep, target: String, job: StoredErasureJob?, app: String, subject: String) {
        instruments.stepAttempts.increment([("target", target), ("outcome", step.status.canonicalName)])
        var fields: [(String, JSONValue)] = [
            ("job", .integer(job?.id ?? 0)), ("target", .string(target)), ("status", .string(step.status.rawValue)),
            ("attempts", .integer(Int64(step.attempts))),
        ]
        if let code = step.evidence.errorCode { fields.append(("error", .string(code.rawValue))) }
        if job == nil { fields.append(("lease", "lost")) }
        log.log(step.status == .failed ? .warning : .info, "erasure.step", app: app, subject: subject, fields)
        if let job, job.status == .completed, let finished = job.job.finishedAt {
            let seconds =
                Double(finished.millisecondsSinceEpoch - job.job.plan.eventTime.millisecondsSinceEpoch) / 1000
            instruments.completionSeconds.observe(value: seconds)
        }
    }

    /// Runs the target once and classifies what it observed. Never throws: every failure is a result with a
    /// stable error code, so it is recorded and retried like any other.
    private func attempt(_ claim: ClaimedErasureStep, _ settings: Settings) async -> ErasureStepResult {
        let configuration = settings.configuration
        let stored = claim.job
        let name = claim.step.target
        guard let app = configuration.apps.first(where: { $0.id == stored.app }) else {
            return .failed(ErasureStepEvidence(errorCode: .appUnknown), retryable: false)
        }
        if name == ErasurePlanner.selfTarget {
            return await scrubSelf(stored)
        }
        guard let target = app.erasure?.targets[name] else {
            return .failed(ErasureStepEvidence(errorCode: .targetUnknown), retryable: false)
        }
        switch target {
        case .sqlite(let path, let statements, let verify, let secureDelete):
            let busyTimeout = Int32(configuration.erasure.busyTimeoutMilliseconds)
            return await DatabaseErasureTarget(
                open: {
                    try ExternalSQLiteDatabase(
                        path: path, busyTimeoutMilliseconds: busyTimeout, secureDelete: secureDelete)
                },
                statements: statements, verify: verify,
                removeRemnants: { database in
                    secureDelete
                        ? try (database as? ExternalSQLiteDatabase)?.removeRemnants() : ErasureHygiene.sqliteOff
                }
            ).erase(subject: stored.subject)
        case .postgres(let url, let statements, let verify, let vacuum):
            let connectTimeout = max(1, configuration.erasure.timeoutMilliseconds / 1000)
            return await DatabaseErasureTarget(
                open: { try ExternalPostgresDatabase(url: url, connectTimeoutSeconds: connectTimeout) },
                statements: statements, verify: verify,
                removeRemnants: { database in
                    vacuum.isEmpty
                        ? ErasureHygiene.postgresOff : try (database as? ExternalPostgresDatabase)?.vacuum(vacuum)
                }
            ).erase(subject: stored.subject)
        case .webhook:
            return await requestWebhook(
                app: app, job: stored, target: name, signer: settings.webhookSigners[app.id],
                timeoutMilliseconds: configuration.erasure.timeoutMilliseconds)
        }
    }

    /// The `self` step: destroys the subject's data keys of the scopes this job's categories erase (every
    /// copy of what they sealed is then unreadable) and clears the columns that held the sealed values, then
    /// counts what remains (0 proves it). The account row and its history stay: they are the tombstone. The
    /// store's files are cleaned of the pre-erasure pages after the batch (``removeRemnants()``); until then
    /// the step's hygiene is ``ErasureStepEvidence/hygienePending``.
    private func scrubSelf(_ stored: StoredErasureJob) async -> ErasureStepResult {
        let scopes = SubjectKeyScope.erased(by: stored.job.plan.categories)
        let (app, subject, now) = (stored.app, stored.subject, clock.now())
        do {
            try await journal(stored, scopes: scopes, at: now)
            let (erasure, remaining) = try await store.write { writer in
                let erasure = try writer.eraseSubjectValues(app: app, subject: subject, scopes: scopes, at: now)
                let remaining = try writer.remainingSubjectValues(app: app, subject: subject, scopes: scopes)
                return (erasure, remaining)
            }
            if !scopes.isEmpty { remnantsOutstanding.withLock { $0 = true } }
            return .erased(
                ErasureStepEvidence(
                    rowsAffected: erasure.rowsCleared, verificationCount: remaining,
                    keysDestroyed: erasure.keysDestroyed,
                    hygiene: scopes.isEmpty ? nil : ErasureStepEvidence.hygienePending))
        } catch {
            return .failed(ErasureStepEvidence(errorCode: .storeUnavailable), retryable: true)
        }
    }

    /// Appends the erasure to the store's erasure journal (SQLite only, ``ErasureJournal``) and flushes it
    /// before the step commits, so a restore of an older backup re-applies it; the account as it stands now
    /// is its tombstone. A journal that cannot be written fails the step (retried), so no erasure commits
    /// unrecorded.
    private func journal(_ stored: StoredErasureJob, scopes: Set<SubjectKeyScope>, at now: Instant) async throws {
        guard let journal = ErasureJournal(storage: configuration.storage) else { return }
        let (app, subject) = (stored.app, stored.subject)
        let account = try await store.read { reader in try reader.account(app: app, subject: subject) }
        try journal.create(at: now)
        try journal.append(
            .erasure(
                ErasureJournalEntry(
                    at: now, app: app, subject: log.pseudonym(app: app, subject: subject), job: stored.id,
                    scopes: scopes, account: account)))
    }

    /// Whether the store may hold pre-erasure pages: true at start (a crash may have left a `self` step's
    /// hygiene pending) and after every batch with a `self` step, until ``removeRemnants()`` completes.
    private let remnantsOutstanding = Mutex(true)

    /// Has the store leave no byte of what erasure removed in its files (``Store/removeRemnants()``), then
    /// records what was done on every `self` step that was waiting for it. When a reader keeps the log busy
    /// it stays outstanding and is tried again after the next batch or poll.
    public func removeRemnants() async throws {
        guard remnantsOutstanding.withLock({ $0 }) else { return }
        let started = clock.now()
        let removal = try await store.removeRemnants()
        guard removal.complete else {
            log.log(.warning, "erasure.remnants_pending", [("reason", .string(removal.description))])
            return
        }
        remnantsOutstanding.withLock { $0 = false }
        let description = removal.description + " at " + clock.now().iso8601
        let completed = try await store.write { writer in
            try writer.completePendingHygiene(description: description, finishedBy: started)
        }
        if completed > 0 {
            log.log(
                .info, "erasure.remnants_removed",
                [("steps", .integer(Int64(completed))), ("how", .string(removal.description))])
        }
    }

    private func requestWebhook(
        app: AppConfiguration, job: StoredErasureJob, target: String, signer: WebhookSigner?,
        timeoutMilliseconds: Int
    ) async -> ErasureStepResult {
        guard let webhook = app.webhook, let signer else {
            return .failed(ErasureStepEvidence(errorCode: .noWebhookConfigured), retryable: false)
        }
        let plan = job.job.plan
        let now = clock.now()
        let body: JSONValue = [
            "type": .string(WebhookKind.erasureRequested.rawValue), "timestamp": .string(now.iso8601),
            "data": [
                "job_id": .integer(job.id), "target": .string(target), "app": .string(job.app),
                "sub": .string(job.subject), "categories": .array(plan.categories.map { .string($0.canonicalName) }),
                "trigger": .string(plan.trigger.canonicalName), "event_time": .string(plan.eventTime.iso8601),
                "deadline": .string(plan.deadline.iso8601), "policy": .string(plan.policyReference),
                "callback": .string("/v1/jobs/\(job.id)/steps/\(target)/complete"),
            ],
        ]
        let client = ErasureWebhookClient(
            url: webhook.url, signer: signer,
            timeout: .milliseconds(timeoutMilliseconds))
        return await client.deliver(messageID: "erasure_\(job.id)_\(target)", body: body.encoded(), at: now)
    }

    // MARK: Operator and callback entry points

    /// What a target's callback says about a step that is waiting for it.
    public enum CallbackOutcome: String, Sendable, CaseIterable {
        /// The target erased the data: the step is `done`.
        case erased
        /// The target says done but offers nothing to check: the step is `unverified`.
        case unverifiable
        /// The target could not erase: retried while attempts remain, else `failed`.
        case failed
    }

    /// What ``completeCallback(jobID:target:outcome:evidence:)`` did.
    public enum CallbackResult: Sendable, Hashable {
        /// Recorded; the job as stored afterwards.
        case recorded(StoredErasureJob)
        /// No such job, or the job has no step for that target.
        case notFound
        /// The step is not waiting for a callback (never accepted, already finished, job cancelled).
        case notWaiting(ErasureStepStatus)
    }

    /// `POST /v1/jobs/{id}/steps/{target}/complete` and `lifecycle jobs complete ID TARGET`: records the
    /// outcome a target reports for a step it accepted with 202.
    public func completeCallback(
        jobID: Int64, target: String, outcome: CallbackOutcome = .erased, evidence: ErasureStepEvidence = .none
    ) async throws -> CallbackResult {
        guard let stored = try await store.read({ reader in try reader.erasureJob(id: jobID) }),
            let index = stored.job.steps.firstIndex(where: { $0.target == target })
        else { return .notFound }
        var job = stored.job
        let status = job.steps[index].status
        guard status == .waitingCallback, job.cancelledAt == nil else { return .notWaiting(status) }
        let configuration = self.configuration
        let now = clock.now()
        var evidence = evidence
        evidence.responseStatus = evidence.responseStatus ?? job.steps[index].evidence.responseStatus
        let result: ErasureStepResult =
            switch outcome {
            case .erased: .erased(evidence)
            case .unverifiable: .unverifiable(evidence)
            case .failed: .failed(evidence, retryable: true)
            }
        _ = job.record(
            stepResult: result, step: index, at: now, retry: configuration.erasure.retrySchedule, random: random())
        let step = job.steps[index]
        let saved = try await store.write { writer in
            try writer.recordErasureStep(jobID: jobID, index: index, step: step, owner: nil, at: now)
        }
        guard let saved else { return .notWaiting(status) }
        observe(step: step, target: target, job: saved, app: stored.app, subject: stored.subject)
        return .recorded(saved)
    }

    /// `lifecycle jobs retry ID` (and the admin API's retry): failed and unverified steps run again with the
    /// full retry schedule. Returns how many steps were reset.
    public func retry(jobID: Int64) async throws -> Int {
        let now = clock.now()
        return try await store.write { writer in try writer.retryErasureJob(id: jobID, now: now) }
    }

    /// Sets the gauges whose truth is in the store: jobs by status, steps by target and status, jobs past
    /// their deadline.
    public func refreshGauges() async throws {
        let now = clock.now()
        let (jobs, steps, overdue) = try await store.read { reader in
            (try reader.erasureJobCounts(), try reader.erasureStepCounts(), try reader.overdueErasureJobCount(now: now))
        }
        for (status, count) in jobs {
            instruments.jobs.set([("status", status.rawValue)], to: Double(count))
        }
        for count in steps {
            instruments.steps.set(
                [("target", count.target), ("status", count.status.canonicalName)], to: Double(count.count))
        }
        instruments.overdue.set(to: Double(overdue))
    }
}
