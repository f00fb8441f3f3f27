import LifecycleCore
import LifecycleStore

/// The collect stage: reads from the store what a report of one app and period needs — every account input
/// with event time in the period (from the accounts' history), the jobs of the subjects concerned, and the
/// last reconcile's findings — into ``ReportInputs``.
///
/// Accounts are walked with keyset paging (``StoreReader/accounts(app:afterSubject:limit:)``), one read
/// transaction per page, so a long walk neither holds a snapshot open nor skips an account.
public struct ReportCollector: Sendable {
    public var store: any Store
    public var jobs: any ErasureJobSource
    public var findings: any FindingSource
    public var options: ReportOptions

    public init(
        store: any Store, jobs: any ErasureJobSource = NoErasureJobs(), findings: any FindingSource = NoFindings(),
        options: ReportOptions = .default
    ) {
        self.store = store
        self.jobs = jobs
        self.findings = findings
        self.options = options
    }

    public func collect(app: String, period: ReportPeriod, generatedAt: Instant) async throws -> ReportInputs {
        var events: [ReportEvent] = []
        var after: String? = nil
        let pageSize = options.collectionPageSize
        while true {
            let cursor = after
            let page: (events: [ReportEvent], last: String?, count: Int) = try await store.read { reader in
                let accounts = try reader.accounts(app: app, afterSubject: cursor, limit: pageSize)
                var found: [ReportEvent] = []
                for (subject, _) in accounts {
                    for stored in try reader.history(app: app, subject: subject)
                    where period.contains(stored.entry.eventTime) {
                        found.append(
                            ReportEvent(
                                subject: subject, kind: stored.entry.kind, source: stored.source,
                                eventTime: stored.entry.eventTime, receivedAt: stored.entry.receivedAt,
                                disposition: stored.entry.disposition))
                    }
                }
                return (found, accounts.last?.subject, accounts.count)
            }
            events += page.events
            guard page.count == pageSize, let last = page.last else { break }
            after = last
        }
        let subjects = Set(
            events.filter { ReportAssembler.deletionTypes.contains($0.kind) && $0.disposition == .applied }.map(
                \.subject))
        var subjectJobs: [ReportSubjectJob] = []
        for subject in subjects.sorted() {
            subjectJobs += try await jobs.erasureJobs(app: app, subject: subject)
        }
        let ordered = subjects.sorted()
        let (keys, masterKeys, revocations, types, decisions) = try await store.read { reader in
            var keys: [String: [StoredSubjectKey]] = [:]
            var revocations: [String: StoredAppleRevocation] = [:]
            var decisions: [String: [StoredRequestDecision]] = [:]
            for subject in ordered {
                keys[subject] = try reader.subjectKeys(app: app, subject: subject)
                revocations[subject] = try reader.appleRevocation(app: app, subject: subject)
                let recorded = try reader.requestDecisions(app: app, subject: subject)
                if !recorded.isEmpty { decisions[subject] = recorded }
            }
            let types = try reader.notificationTypeCounts(app: app, from: period.from, to: period.to)
            return (keys, try reader.masterKeys(), revocations, types, decisions)
        }
        var inputs = ReportInputs(
            app: app, period: period, generatedAt: generatedAt, events: events, jobs: subjectJobs,
            findingRun: try await findings.lastReconcile(app: app), subjectKeys: keys, masterKeys: masterKeys)
        inputs.appleRevocations = revocations
        inputs.notificationTypes = types
        inputs.requestDecisions = decisions
        return inputs
    }
}
