import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// Turns collected ``ReportInputs`` into a ``ReportDataset``: pseudonymises subjects, derives each request's
/// outcome from its jobs' evidence, and computes the summary. Pure and synchronous: the same inputs, key and
/// generation time give the same dataset.
///
/// Outcome rules (DOMAIN.md §6; reports must not overstate erasure):
/// - a request's jobs are the jobs of its subject whose frozen trigger and event time match the request;
/// - completed only when every uncancelled erasure job is `completed`; with retained categories it is
///   `completed-with-exceptions`;
/// - otherwise `overdue` once a job's deadline has passed at the generation time, `failed` when a job failed
///   or ended unverified within its deadline, else `pending`; every job cancelled by a re-link is `cancelled`;
/// - on time only when every job completed by its own deadline.
public struct ReportAssembler: Sendable {
    /// The account inputs that are deletion requests, in report order. `credentials-invalid` (the daily probe's
    /// `invalid_grant`) is not one: it schedules no erasure until the app or Apple confirms, so it is charted
    /// and reported as a finding, never listed as a request that would stay pending.
    public static let deletionTypes: [AccountInputKind] = [
        .accountDeleted, .inAppDeletion, .consentRevoked,
    ]
    /// The inputs the events-per-day chart counts: everything but sign-ins, which would drown the rest.
    public static let chartedEventTypes: [AccountInputKind] = [
        .accountDeleted, .inAppDeletion, .consentRevoked, .credentialsInvalid, .emailDisabled, .emailEnabled,
    ]

    public var pseudonymizer: any SubjectPseudonymizer
    public var pseudonymKeyID: String
    public var options: ReportOptions
    /// Backup retention and rotation schedule, for each request's ``ReportRemainingCopies``.
    public var retention: ReportRetention
    /// Key id of the pseudonym key of the logs, `jobs list` and the admin API (`pseudonymKeyFile`); nil when it
    /// is the report's own.
    public var operationsPseudonymKeyID: String?

    public init(
        pseudonymizer: any SubjectPseudonymizer, pseudonymKeyID: String, options: ReportOptions = .default,
        retention: ReportRetention = .unstated, operationsPseudonymKeyID: String? = nil
    ) {
        self.operationsPseudonymKeyID = operationsPseudonymKeyID
        self.pseudonymizer = pseudonymizer
        self.pseudonymKeyID = pseudonymKeyID
        self.options = options
        self.retention = retention
    }

    /// One deletion request as assembled: its row, and what the summary takes from it besides.
    public struct AssembledRequest: Sendable {
        public var row: ReportSubjectRow
        /// Its case for the timing statistics; nil when it stays out of them (no erasure job, cancelled, held).
        var deletionCase: DeletionCase?
        /// Its jobs whose status is `failed`.
        var failedJobs: Int

        /// What the summary counts of it.
        public var facts: Facts {
            Facts(
                eventType: row.eventType, provider: row.provider, outcome: row.outcome, deadlineDays: row.deadlineDays,
                deletionCase: deletionCase, failedJobs: failedJobs,
                retainedItems: row.retained.filter { $0.status == "retained" }.count,
                appleRevocation: row.appleRevocation?.status)
        }
    }

    /// What the summary takes from one request: a few values in place of its row, so that the counts of a
    /// large month are made without its rows in memory (they wait in a ``ReportRowSpool``).
    public struct Facts: Sendable {
        var eventType: String
        var provider: String
        var outcome: ReportOutcome
        var deadlineDays: Double?
        /// Its case for the timing statistics (``AssembledRequest``).
        var deletionCase: DeletionCase?
        var failedJobs: Int
        /// Its retained categories not purged yet.
        var retainedItems: Int
        /// The status of its Apple token revocation, for in-app deletions.
        var appleRevocation: String?
    }

    /// All at once: ``requests(_:)`` then ``dataset(requests:inputs:)`` over the same inputs.
    public func assemble(_ inputs: ReportInputs) -> ReportDataset {
        dataset(requests: requests(inputs), inputs: inputs)
    }

    /// The deletion requests among `inputs`' events, in no particular order. `inputs` may be one page of a
    /// period's (``ReportCollector/collect(app:period:generatedAt:rows:)``): a request's row needs only its own
    /// subject's jobs, data keys, revocation and decisions, and the master keys.
    public func requests(_ inputs: ReportInputs) -> [AssembledRequest] {
        let asOf = inputs.generatedAt
        let jobsBySubject = Dictionary(grouping: inputs.jobs, by: \.subject)
        return inputs.events.filter {
            $0.disposition == .applied && Self.deletionTypes.contains($0.kind) && inputs.period.contains($0.eventTime)
        }.map { event in
            let trigger = Self.trigger(for: event.kind)
            let jobs = (jobsBySubject[event.subject] ?? []).filter {
                $0.job.plan.trigger == trigger && $0.job.plan.eventTime == event.eventTime
            }
            let decisions = (inputs.requestDecisions[event.subject] ?? []).filter {
                $0.request.trigger == trigger && $0.request.eventTime == event.eventTime
            }
            let late = decisions.lazy.compactMap(Self.reportExtension).first { $0.recordedAfterDeadline }
            var result = row(
                for: event, jobs: jobs, app: inputs.app, asOf: asOf, judgedBy: late?.previousDeadline)
            result.row.remainingCopies = remainingCopies(
                jobs: jobs, keys: inputs.subjectKeys[event.subject] ?? [], masterKeys: inputs.masterKeys,
                app: inputs.app)
            if event.kind == .inAppDeletion {
                result.row.appleRevocation = inputs.appleRevocations[event.subject].map(ReportAppleRevocation.init)
            }
            if Self.apply(decisions, to: &result.row) { result.deletionCase = nil }
            return result
        }
    }

    /// The dataset of the period's `requests` (every page's ``requests(_:)``), held in memory: see
    /// ``dataset(facts:rows:inputs:)``.
    public func dataset(requests: consuming [AssembledRequest], inputs: ReportInputs) -> ReportDataset {
        // Moved out of the parameter, so the caller's only reference is sorted in place rather than copied.
        var requests = consume requests
        requests.sort {
            ($0.row.eventTime, $0.row.pseudonym, $0.row.eventType) < (
                $1.row.eventTime, $1.row.pseudonym, $1.row.eventType
            )
        }
        return dataset(facts: requests.map(\.facts), rows: ReportRows(requests.map(\.row)), inputs: inputs)
    }

    /// The dataset of the period's requests — their `rows` in report order (by event time, pseudonym, event
    /// type) and the `facts` of each in any order — with the counts, chart and findings taken from the
    /// period-wide `inputs` (their events, findings and notification types; jobs are not read here).
    public func dataset(facts requests: [Facts], rows: ReportRows, inputs: ReportInputs) -> ReportDataset {
        let asOf = inputs.generatedAt
        let findings = inputs.findingRun.map { run in
            ReportFindings(
                lastRunAt: run.ranAt,
                items: run.findings.sorted {
                    ($0.severity, $1.code.rawValue) > ($1.severity, $0.code.rawValue)
                }.map { finding in
                    ReportFinding(
                        code: finding.code.canonicalName, severity: finding.severity.canonicalName,
                        pseudonym: finding.subject.map { pseudonymizer.pseudonym(app: inputs.app, subject: $0) },
                        detail: finding.detail, windowFrom: finding.window?.from, windowTo: finding.window?.to,
                        provider: finding.subject.map(ProviderSubject.providerName(ofAccountKey:)))
                }, recordsCompared: run.recordsCompared, recordsRead: run.recordsRead)
        }
        let byType = Self.deletionTypes.map { kind in
            Self.typeSummary(kind.canonicalName, requests, asOf: asOf, options: options) {
                $0.eventType == kind.canonicalName
            }
        }
        let openFindings = findings?.items ?? []
        let providers = Set(requests.map(\.provider)).sorted()
        var appleRevocations: [String: Int] = [:]
        for request in requests {
            if let status = request.appleRevocation { appleRevocations[status, default: 0] += 1 }
        }
        var summary = ReportSummary(
            byType: byType,
            total: Self.typeSummary("all", requests, asOf: asOf, options: options) { _ in true },
            failedJobs: requests.reduce(0) { $0 + $1.failedJobs },
            retainedItems: requests.reduce(0) { $0 + $1.retainedItems },
            findingsBySeverity: Dictionary(grouping: openFindings, by: \.severity).mapValues(\.count),
            findingsByCode: Dictionary(grouping: openFindings, by: \.code).mapValues(\.count),
            appleRevocations: appleRevocations)
        summary.byProvider = providers.map { provider in
            Self.typeSummary(provider, requests, asOf: asOf, options: options) { $0.provider == provider }
        }
        // Counted once: the collector's tally of its pages and any events still held.
        let tally = inputs.eventTally
        var dataset = ReportDataset(
            app: inputs.app, period: inputs.period, generatedAt: asOf, pseudonymKeyID: pseudonymKeyID,
            subjects: rows, eventsPerDay: eventsPerDay(inputs.period, tally), findings: findings ?? .none,
            summary: summary, integrity: nil)
        dataset.inputs = Self.inputCounts(tally, notificationTypes: inputs.notificationTypes)
        dataset.minimumMedianSample = options.minimumMedianSample
        dataset.minimumP95Sample = options.minimumP95Sample
        dataset.pageRequestLimit = options.pageRequestLimit
        dataset.operationsPseudonymKeyID = operationsPseudonymKeyID ?? pseudonymKeyID
        return dataset
    }

    /// The policy trigger whose rules a deletion input starts; a lost revocation found by the reconciler
    /// runs the `consent-revoked` rules (``PolicyTrigger``).
    static func trigger(for kind: AccountInputKind) -> PolicyTrigger? {
        switch kind {
        case .accountDeleted: .accountDeleted
        case .inAppDeletion: .inAppDeletion
        case .consentRevoked: .consentRevoked
        case .credentialsInvalid, .emailDisabled, .emailEnabled, .linked, .accessSuspended, .sessionsRevoked: nil
        }
    }

    static func source(of event: ReportEvent) -> ReportEventSource {
        if event.kind == .inAppDeletion { return .inApp }
        if event.source == "reconciler" { return .reconciler }
        return .notification
    }

    /// `judgedBy`: the deadline before an extension recorded once it had passed (an older release allowed it),
    /// which decides timeliness however far the extension moved the jobs' deadlines. Only the latest of the
    /// request's deadlines is recorded with an extension (`previousDeadline`), and the extension moved every
    /// open job's: one that an older release let through between two of a request's deadlines cannot be told
    /// apart.
    private func row(
        for event: ReportEvent, jobs: [ReportSubjectJob], app: String, asOf: Instant, judgedBy: Instant?
    ) -> AssembledRequest {
        let erasures = jobs.filter { $0.job.plan.ruleIndex != nil }
        let live = erasures.filter { $0.job.status != .cancelled }
        let retained = jobs.filter { $0.job.plan.ruleIndex == nil }.flatMap { purge in
            purge.job.plan.categories.map { category in
                ReportRetainedItem(
                    category: category.rawValue, basis: purge.job.plan.basis ?? "", purgeAt: purge.job.plan.deadline,
                    status: purge.job.status == .completed ? "purged" : "retained")
            }
        }
        let targets = jobs.flatMap { Self.targetOutcomes($0) }
        let failedJobs = jobs.filter { $0.job.status == .failed }.count
        var row = ReportSubjectRow(
            pseudonym: pseudonymizer.pseudonym(app: app, subject: event.subject), eventType: event.kind.canonicalName,
            source: Self.source(of: event), eventTime: event.eventTime, receivedAt: event.receivedAt,
            policy: (live.first ?? erasures.first ?? jobs.first)?.job.plan.policyReference,
            deadline: live.map(\.job.plan.deadline).max(), targets: targets, verification: .none, retained: retained,
            outcome: .pending, onTime: nil, completedAt: nil, daysToComplete: nil)
        row.provider = ProviderSubject.providerName(ofAccountKey: event.subject)
        row.replayed = event.source == NotificationIngestor.Source.replay.rawValue
        guard !erasures.isEmpty else { return AssembledRequest(row: row, deletionCase: nil, failedJobs: failedJobs) }
        row.cancellation = Self.cancellation(erasures.filter { $0.job.status == .cancelled })
        guard let deadline = row.deadline else {
            row.outcome = .cancelled
            row.deadline = erasures.map(\.job.plan.deadline).max()
            return AssembledRequest(row: row, deletionCase: nil, failedJobs: failedJobs)
        }
        let statuses = live.map(\.job.status)
        let allCompleted = statuses.allSatisfy { $0 == .completed }
        let completedAt = allCompleted ? live.compactMap(\.job.finishedAt).max() : nil
        // The deadline that decides timeliness: the earliest one a job missed, else the latest one; never later
        // than the deadline a late-recorded extension moved.
        let missed = live.filter { job in
            if let finished = job.job.finishedAt, job.job.status == .completed {
                return finished > job.job.plan.deadline
            }
            return job.job.plan.deadline < asOf
        }
        let binding = min(missed.map(\.job.plan.deadline).min() ?? deadline, judgedBy ?? deadline)
        let deletionCase = DeletionCase(eventTime: event.eventTime, deadline: binding, completedAt: completedAt)
        row.completedAt = completedAt
        row.daysToComplete = deletionCase.daysToComplete.map(ReportNumbers.rounded)
        if allCompleted {
            row.onTime = deletionCase.isOnTime
        } else if binding < asOf {
            row.onTime = false
        }
        // A webhook step's evidence is the app backend's answer (its HTTP status; a callback's counts are the
        // backend's own): done on its word, which the service cannot check. No other target kind records one.
        let onTargetsWord = live.contains { job in job.job.steps.contains { $0.evidence.responseStatus != nil } }
        row.verification =
            allCompleted
            ? (onTargetsWord ? .acknowledged : .verified)
            : statuses.contains(.failed) ? .failed : statuses.contains(.unverified) ? .unverified : .pending
        if allCompleted, row.cancellation != nil {
            // What no sign-in undoes (e.g. the tokens) was erased; the rest was withdrawn by the re-link. Not a
            // completed deletion, so it stays out of the completion statistics.
            row.outcome = .cancelled
            row.completedAt = nil
            row.daysToComplete = nil
            row.onTime = nil
            return AssembledRequest(row: row, deletionCase: nil, failedJobs: failedJobs)
        } else if allCompleted {
            row.outcome = row.retained.contains { $0.status == "retained" } ? .completedWithExceptions : .completed
        } else if binding < asOf {
            row.outcome = .overdue
        } else if statuses.contains(.failed) || statuses.contains(.unverified) {
            row.outcome = .failed
        } else {
            row.outcome = .pending
        }
        return AssembledRequest(row: row, deletionCase: deletionCase, failedJobs: failedJobs)
    }

    /// Puts a request's extension, holds and refusal on its row. A request that was ever held claims no
    /// timeliness: `onTime` is nil and it is left out of the on-time and completion statistics (the returned
    /// true), since the hold, not the service, set when the erasure could run.
    static func apply(_ decisions: [StoredRequestDecision], to row: inout ReportSubjectRow) -> Bool {
        for stored in decisions {
            let decision = stored.decision
            switch decision.kind {
            case .extension:
                if let value = reportExtension(stored) { row.extension = value }
            case .hold:
                row.holds.append(
                    ReportHold(
                        grounds: decision.reason, heldAt: decision.recordedAt, releasedAt: stored.releasedAt,
                        releaseReason: stored.releaseReason))
            case .refusal:
                row.denial = ReportDenial(basis: decision.reason, deniedAt: decision.recordedAt)
            }
        }
        guard !row.holds.isEmpty else { return false }
        row.onTime = nil
        return true
    }

    /// An extension as the report shows it; nil for another decision, or one stored without its dates.
    static func reportExtension(_ stored: StoredRequestDecision) -> ReportExtension? {
        let decision = stored.decision
        guard decision.kind == .extension, let notice = decision.noticeAt,
            let previous = decision.previousDeadline, let new = decision.newDeadline
        else { return nil }
        return ReportExtension(
            reason: decision.reason, noticeAt: notice, previousDeadline: previous, newDeadline: new,
            recordedAt: decision.recordedAt)
    }

    /// The re-link cancellation of a request's jobs: when, why (each distinct recorded reason) and which steps
    /// it withdrew: those not done by then (a step done before the re-link erased, and says so).
    static func cancellation(_ cancelled: [ReportSubjectJob]) -> ReportCancellation? {
        guard !cancelled.isEmpty else { return nil }
        var reasons: [String] = []
        for reason in cancelled.map({ $0.cancelReason ?? "no reason recorded" }) where !reasons.contains(reason) {
            reasons.append(reason)
        }
        return ReportCancellation(
            cancelledAt: cancelled.compactMap(\.job.cancelledAt).max(), reason: reasons.joined(separator: "; "),
            steps: cancelled.flatMap { job in
                job.job.steps.filter(job.withdrew).map { "\($0.target) \(job.job.plan.origin.path)" }
            })
    }

    /// The request's bound on remaining copies: per store its erasure (rule-based jobs; of a job a re-link
    /// cancelled, the steps that had erased) finished in, the backups' end by the configured retention; and the
    /// master key of the data keys its `self` step destroyed, with its rotation.
    func remainingCopies(
        jobs: [ReportSubjectJob], keys: [StoredSubjectKey], masterKeys: [StoredMasterKey], app: String
    ) -> ReportRemainingCopies? {
        let steps = jobs.filter { $0.job.plan.ruleIndex != nil }.flatMap { job in
            job.job.steps.filter { !job.withdrew($0) }
        }
        guard !steps.isEmpty else { return nil }
        var stepsByStore: [String: [ErasureStep]] = [:]
        var order: [String] = []
        for step in steps {
            if stepsByStore[step.target] == nil { order.append(step.target) }
            stepsByStore[step.target, default: []].append(step)
        }
        let backups = order.map { store in
            let steps = stepsByStore[store] ?? []
            let erasedAt = steps.allSatisfy { $0.status == .done } ? steps.compactMap(\.finishedAt).max() : nil
            return ReportBackupCopy(
                store: store, retentionDays: retention.days(app: app, target: store), erasedAt: erasedAt)
        }
        let latest = keys.filter(\.isDestroyed).max {
            ($0.destroyedAt?.millisecondsSinceEpoch ?? 0) < ($1.destroyedAt?.millisecondsSinceEpoch ?? 0)
        }
        let masterKey = latest.map { key -> ReportMasterKeyBound in
            let master = masterKeys.first { $0.id == key.masterKeyID }
            var due: Instant? = nil
            if let master, master.state == .current, let days = retention.rotateEveryDays {
                due = master.addedAt.adding(milliseconds: Int64(days) * ReportPeriod.millisecondsPerDay)
            }
            return ReportMasterKeyBound(id: key.masterKeyID, retiredAt: master?.retiredAt, rotationDueBy: due)
        }
        return ReportRemainingCopies(backups: backups, masterKey: masterKey)
    }

    private static func targetOutcomes(_ subjectJob: ReportSubjectJob) -> [ReportTargetOutcome] {
        let job = subjectJob.job
        return job.steps.enumerated().map { index, step in
            ReportTargetOutcome(
                target: step.target, rule: job.plan.origin.path, categories: job.plan.categories.map(\.rawValue),
                status: subjectJob.withdrew(step) ? "cancelled" : step.status.canonicalName,
                attempts: step.attempts,
                firstAttemptAt: index < subjectJob.stepsStartedAt.count ? subjectJob.stepsStartedAt[index] : nil,
                lastAttemptAt: step.lastAttemptAt, finishedAt: step.finishedAt, deadline: job.plan.deadline,
                rowsAffected: step.evidence.rowsAffected, verificationCount: step.evidence.verificationCount,
                responseStatus: step.evidence.responseStatus, errorCode: step.evidence.errorCode?.rawValue,
                keysDestroyed: step.evidence.keysDestroyed, hygiene: step.evidence.hygiene)
        }
    }

    /// The counts and timing of the `requests` whose row `includes` accepts, without copying them.
    static func typeSummary(
        _ type: String, _ requests: [Facts], asOf: Instant, options: ReportOptions, includes: (Facts) -> Bool
    ) -> ReportTypeSummary {
        var summary = ReportTypeSummary(
            type: type, received: 0, completed: 0, completedWithExceptions: 0, pending: 0, overdue: 0, failed: 0,
            cancelled: 0, onTimeRate: nil, medianDaysToComplete: nil, p95DaysToComplete: nil, deadlineDays: nil)
        var cases: [DeletionCase] = []
        for request in requests where includes(request) {
            summary.received += 1
            switch request.outcome {
            case .completed: summary.completed += 1
            case .completedWithExceptions:
                summary.completed += 1
                summary.completedWithExceptions += 1
            case .pending: summary.pending += 1
            case .overdue: summary.overdue += 1
            case .failed: summary.failed += 1
            case .cancelled: summary.cancelled += 1
            }
            if let days = request.deadlineDays { summary.deadlineDays = max(summary.deadlineDays ?? days, days) }
            if let deletionCase = request.deletionCase { cases.append(deletionCase) }
        }
        let days = DeletionStatistics.daysToComplete(cases)
        summary.onTimeRate = DeletionStatistics.onTimeRate(cases, asOf: asOf).map(ReportNumbers.rounded)
        summary.medianDaysToComplete =
            days.count < options.minimumMedianSample ? nil : DeletionStatistics.median(days).map(ReportNumbers.rounded)
        summary.p95DaysToComplete =
            days.count < options.minimumP95Sample ? nil : DeletionStatistics.p95(days).map(ReportNumbers.rounded)
        summary.decided = cases.filter { $0.completedAt != nil || $0.deadline < asOf }.count
        summary.daysToCompleteSample = days.count
        summary.longestDaysToComplete = days.max().map(ReportNumbers.rounded)
        return summary
    }

    /// The account inputs of the period by disposition, and the notifications of unknown types.
    static func inputCounts(_ tally: ReportEventTally, notificationTypes: [String: Int]) -> ReportInputCounts {
        var counts = ReportInputCounts.none
        counts.applied = tally.count(.applied)
        counts.duplicate = tally.count(.duplicate)
        counts.stale = tally.count(.stale)
        counts.ignored = tally.count(.ignored)
        counts.notifications = notificationTypes.values.reduce(0, +)
        counts.unknownTypes = notificationTypes.filter { !AppleEventType(wireValue: $0.key).isKnown }
        return counts
    }

    private func eventsPerDay(_ period: ReportPeriod, _ tally: ReportEventTally) -> [ReportDailyEvents] {
        period.days(limit: options.maximumChartDays).map { start in
            ReportDailyEvents(
                day: ReportPeriod.dayName(start),
                counts: Self.chartedEventTypes.map { ($0.canonicalName, tally.count(day: start, kind: $0)) })
        }
    }
}
