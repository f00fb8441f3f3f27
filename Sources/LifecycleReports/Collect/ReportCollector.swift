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

    /// Everything at once: the period-wide inputs with every page's jobs, keys, revocations and decisions.
    public func collect(app: String, period: ReportPeriod, generatedAt: Instant) async throws -> ReportInputs {
        var (inputs, pages) = try await collect(app: app, period: period, generatedAt: generatedAt) { [$0] }
        // The pages' events themselves, not only their counts: the whole is assembled from them at once.
        inputs.countedEvents = ReportEventTally()
        for page in pages {
            inputs.events += page.events
            inputs.jobs += page.jobs
            inputs.subjectKeys.merge(page.subjectKeys) { $0 + $1 }
            inputs.appleRevocations.merge(page.appleRevocations) { $1 }
            inputs.requestDecisions.merge(page.requestDecisions) { $0 + $1 }
        }
        return inputs
    }

    /// Page by page: `rows` turns one page's inputs (its accounts' events in the period, and every job, data
    /// key, revocation and decision of its deletion requests' subjects, with the master keys) into what the
    /// caller keeps of it, and the page is let go, so a caller that keeps only its requests' rows never holds a
    /// large month's jobs at once. Returns the period-wide inputs without events, jobs, keys, revocations or
    /// decisions (every event counted in ``ReportInputs/countedEvents``, the last reconcile's findings, the
    /// notification types and the master keys) and every page's rows in page order.
    public func collect<Row>(
        app: String, period: ReportPeriod, generatedAt: Instant, rows: (ReportInputs) throws -> [Row]
    ) async throws -> (inputs: ReportInputs, rows: [Row]) {
        let masterKeys = try await store.read { try $0.masterKeys() }
        var counted = ReportEventTally()
        var kept: [Row] = []
        // The next page is read while this one is turned into rows: the store's reads and the caller's
        // assembly take the two cores instead of taking turns on one.
        var next: Task<(page: Page, jobs: [ReportSubjectJob]), any Error>? = fetch(app: app, period: period, after: nil)
        defer { next?.cancel() }
        while let current = next {
            let (page, jobs) = try await current.value
            next =
                page.count == options.collectionPageSize && page.last != nil
                ? fetch(app: app, period: period, after: page.last) : nil
            var inputs = ReportInputs(
                app: app, period: period, generatedAt: generatedAt, events: page.events, jobs: jobs,
                findingRun: nil, subjectKeys: Dictionary(grouping: page.keys, by: \.subject), masterKeys: masterKeys)
            inputs.appleRevocations = Dictionary(page.revocations.map { ($0.subject, $0) }) { $1 }
            inputs.requestDecisions = Dictionary(grouping: page.decisions, by: \.request.subject)
            kept += try rows(inputs)
            counted.count(page.events, period: period)
        }
        let types = try await store.read { reader in
            try reader.notificationTypeCounts(app: app, from: period.from, to: period.to)
        }
        var inputs = ReportInputs(
            app: app, period: period, generatedAt: generatedAt, events: [], jobs: [],
            findingRun: try await findings.lastReconcile(app: app), masterKeys: masterKeys)
        inputs.countedEvents = counted
        inputs.notificationTypes = types
        return (inputs, kept)
    }

    /// Reads, on a task of its own, the page of accounts after `cursor` and the jobs of its deletion requests.
    private func fetch(
        app: String, period: ReportPeriod, after cursor: String?
    ) -> Task<(page: Page, jobs: [ReportSubjectJob]), any Error> {
        let (store, jobs, limit) = (store, jobs, options.collectionPageSize)
        return Task {
            let page = try await store.read { reader in
                try Self.page(reader, app: app, period: period, after: cursor, limit: limit)
            }
            return (page, try await jobs.erasureJobs(app: app, subjects: page.requestSubjects))
        }
    }

    /// One page of accounts, in one read: their inputs in the period, and the data keys, revocations and
    /// decisions of those with an applied deletion request (``ReportAssembler/deletionTypes``), each table
    /// read once over the page's `sub` range.
    struct Page: Sendable {
        var events: [ReportEvent] = []
        /// Subjects with an applied deletion request in the period, in `sub` order.
        var requestSubjects: [String] = []
        var keys: [StoredSubjectKey] = []
        var revocations: [StoredAppleRevocation] = []
        var decisions: [StoredRequestDecision] = []
        var last: String?
        var count = 0
    }

    static func page(
        _ reader: any StoreReader, app: String, period: ReportPeriod, after cursor: String?, limit: Int
    ) throws -> Page {
        let accounts = try reader.accounts(app: app, afterSubject: cursor, limit: limit)
        var page = Page(last: accounts.last?.subject, count: accounts.count)
        guard let first = accounts.first?.subject, let last = page.last else { return page }
        let known = Set(accounts.map(\.subject))
        for (subject, stored) in try reader.history(app: app, fromSubject: first, throughSubject: last)
        where known.contains(subject) && period.contains(stored.entry.eventTime) {
            page.events.append(
                ReportEvent(
                    subject: subject, kind: stored.entry.kind, source: stored.source,
                    eventTime: stored.entry.eventTime, receivedAt: stored.entry.receivedAt,
                    disposition: stored.entry.disposition))
            if ReportAssembler.deletionTypes.contains(stored.entry.kind), stored.entry.disposition == .applied,
                page.requestSubjects.last != subject
            {
                page.requestSubjects.append(subject)
            }
        }
        guard let firstRequest = page.requestSubjects.first, let lastRequest = page.requestSubjects.last else {
            return page
        }
        let requests = Set(page.requestSubjects)
        page.keys = try reader.subjectKeys(app: app, fromSubject: firstRequest, throughSubject: lastRequest)
            .filter { requests.contains($0.subject) }
        page.revocations = try reader.appleRevocations(app: app, fromSubject: firstRequest, throughSubject: lastRequest)
            .filter { requests.contains($0.subject) }
        page.decisions = try reader.requestDecisions(app: app, fromSubject: firstRequest, throughSubject: lastRequest)
            .filter { requests.contains($0.request.subject) }
        return page
    }
}
