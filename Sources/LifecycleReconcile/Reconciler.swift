import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleSQL
import LifecycleStore
import Synchronization

/// The nightly safety net (DESIGN.md §8): Apple documents no delivery guarantee, so the app's own records are
/// compared against what the service observed, and the service's own heartbeats are checked for windows when
/// nothing could have been received.
///
/// One run at a time across every process on the store (a leased lock row that a crashed run cannot hold
/// forever). Each app's records stream through a sort-merge against the service's accounts on a thread of
/// its own, findings are written in batches as they come, subjects only the app holds are registered as
/// linked, and findings not seen again are marked resolved. Memory does not grow with the number of records.
public final class Reconciler: Sendable {
    public struct Report: Sendable {
        public var runID: Int64
        public var startedAt: Instant
        public var finishedAt: Instant
        public var apps: [AppReport]

        public var findings: [Finding] { apps.flatMap(\.findings) }
        public var highestSeverity: FindingSeverity? { findings.map(\.severity).max() }
    }

    public struct AppReport: Sendable {
        public var app: String
        /// Whether the app's own records were compared with the accounts (it has a `records` source); without
        /// one the service's accounts are still walked for the findings that need no app records.
        public var recordsCompared: Bool
        public var recordsRead: Int
        public var accountsRead: Int
        public var registered: Int
        public var resolved: Int
        /// Every finding of this run (also stored); a run with millions of records yields few findings.
        public var findings: [Finding]
    }

    public enum Failure: Error, CustomStringConvertible {
        case busy(ReconcileRunHolder)
        case unknownApp(String)

        public var description: String {
            switch self {
            case .busy(let holder):
                "another reconcile run holds the lock: run \(holder.id) by \(holder.owner) since "
                    + "\(holder.startedAt.iso8601), its lease until \(holder.leasedUntil.iso8601); try again after it "
                    + "finishes (or after the lease, if that process is gone)"
            case .unknownApp(let app): "no app \(app) in the configuration"
            }
        }
    }

    static let pageSize = 2000
    static let flushEvery = 1000

    let store: any Store
    let log: EventLog
    let clock: any LifecycleClock
    /// The configuration in force (its apps, record sources and account transitions), read once per run.
    let active: @Sendable () -> ActiveConfiguration
    let owner: String

    /// A reconciler over `store`, writing findings and its run record there, logging to `log`; `active` is read
    /// at the start of each run, so a `serve` that reloads meanwhile does not change a run half-way.
    public init(
        store: any Store, log: EventLog, clock: any LifecycleClock,
        active: @escaping @Sendable () -> ActiveConfiguration,
        owner: String
    ) {
        self.store = store
        self.log = log
        self.clock = clock
        self.active = active
        self.owner = owner
    }

    /// The most of a failed run's error its row and log line keep, in UTF-8 bytes.
    static let maximumErrorBytes = 2048

    /// Runs the comparison for one app (or all), judging deadlines as of `asOf`.
    public func run(app appFilter: String? = nil, asOf: Instant) async throws -> Report {
        // One configuration for the whole run, even if `serve` reloads meanwhile.
        let active = self.active()
        let configuration = active.configuration
        let apps =
            try appFilter.map { id in
                guard let app = configuration.apps.first(where: { $0.id == id }) else { throw Failure.unknownApp(id) }
                return [app]
            } ?? configuration.apps
        let started = clock.now()
        let lease = Int64(configuration.reconcile.leaseSeconds)
        let runID = try await takeLock(app: appFilter, at: started, leaseUntil: started.adding(seconds: lease))
        log.info("reconcile.started", [("run", .integer(runID)), ("apps", .integer(Int64(apps.count)))])
        do {
            var reports: [AppReport] = []
            for app in apps {
                reports.append(try await reconcile(app, runID: runID, asOf: asOf, active: active))
            }
            let finished = clock.now()
            let report = Report(runID: runID, startedAt: started, finishedAt: finished, apps: reports)
            let summary = Self.summary(report).serialized()
            try await store.write { writer in
                try writer.finishReconcileRun(id: runID, status: .completed, at: finished, summary: summary, error: nil)
            }
            log.info(
                "reconcile.finished",
                [
                    ("run", .integer(runID)), ("findings", .integer(Int64(report.findings.count))),
                    ("milliseconds", .integer(finished.millisecondsSinceEpoch - started.millisecondsSinceEpoch)),
                ])
            return report
        } catch {
            let finished = clock.now()
            // A source's error can quote the app's own data (a CSV header, a database's message): one line,
            // bounded, in the run's row as in the log.
            let message =
                error is CancellationError
                ? "stopped before it finished (the process is shutting down)"
                : String(describing: error).quotedForError(maxBytes: Self.maximumErrorBytes)
            try? await store.write { writer in
                try writer.finishReconcileRun(id: runID, status: .failed, at: finished, summary: nil, error: message)
            }
            log.log(.error, "reconcile.failed", [("run", .integer(runID)), ("error", .string(message))])
            throw error
        }
    }

    /// Starts a run, or takes the lock over at once from a holder that ran on this host and whose process is
    /// gone (``ProcessIdentity/isGone``: a `kill -9`, a crash), rather than waiting out its lease; any other
    /// holder is reported (``Failure/busy(_:)``) with who it is and until when its lease holds.
    private func takeLock(app: String?, at started: Instant, leaseUntil: Instant) async throws -> Int64 {
        let owner = self.owner
        let begin = { [store] in
            try await store.write { writer in
                try writer.beginReconcileRun(app: app, owner: owner, at: started, leaseUntil: leaseUntil)
            }
        }
        var claim = try await begin()
        if case .busy(let holder) = claim, let process = ProcessIdentity(parsing: holder.owner), process.isGone {
            let reason = "holder \(holder.owner) is no longer running"
            let released = try await store.write { writer in
                try writer.abandonReconcileRun(id: holder.id, at: started, reason: reason)
            }
            if released {
                log.warning(
                    "reconcile.lock_taken_over", [("run", .integer(holder.id)), ("holder", .string(holder.owner))])
            }
            claim = try await begin()
        }
        switch claim {
        case .started(let id): return id
        case .busy(let holder): throw Failure.busy(holder)
        }
    }

    private func reconcile(
        _ app: AppConfiguration, runID: Int64, asOf: Instant, active: ActiveConfiguration
    ) async throws -> AppReport {
        // Without a records source the service's accounts are still walked: their erasure jobs, credentials and
        // revocations need no app records, and an app that has none must not go without those findings.
        let merged = try await mergeOnThread(app: app, source: app.records, runID: runID, asOf: asOf, active: active)
        var report = AppReport(
            app: app.id, recordsCompared: app.records != nil, recordsRead: merged.recordsRead,
            accountsRead: merged.accountsRead, registered: merged.registered, resolved: 0, findings: merged.findings)
        let gaps =
            try await gapFindings(app: app.id, asOf: asOf, settings: active.configuration.reconcile)
            + recycledIdentifierFindings(app: app.id, asOf: asOf, settings: active.configuration.reconcile)
        report.findings += gaps
        let now = clock.now()
        let appID = app.id
        report.resolved = try await store.write { writer in
            try writer.recordFindings(app: appID, runID: runID, findings: gaps, at: now)
            return try writer.resolveFindings(app: appID, notSeenInRun: runID, at: now)
        }
        return report
    }

    /// `notification-gap`: windows inside the look-back when no instance wrote a heartbeat for longer than the
    /// threshold (several instances: a gap only when every one was silent). The look-back starts no earlier than
    /// the store's first heartbeat: the days before a fresh installation's first `serve` are not a window in
    /// which this service was down. A store no instance ever ran in keeps the whole look-back as one gap.
    private func gapFindings(app: String, asOf: Instant, settings: ReconcileConfiguration) async throws -> [Finding] {
        let lookback = asOf.adding(seconds: -Int64(settings.lookbackHours) * 3600)
        let first = try await store.read { reader in try reader.firstHeartbeat() }
        let from = max(lookback, first ?? lookback)
        let beats = try await store.read { reader in
            try reader.heartbeats(from: from.adding(seconds: -86_400), to: asOf)
        }
        let byInstance = Dictionary(grouping: beats, by: \.instance).values.map { $0.map(\.at).sorted() }
        let windows = NotificationGapDetector.gaps(
            heartbeats: byInstance, thresholdMilliseconds: Int64(settings.gapThresholdSeconds) * 1000, from: from,
            to: asOf)
        guard !windows.isEmpty else { return [] }
        // A walk of the app's accounts (no index keeps states apart: it would cost every ingest), so made only
        // for a gap.
        let live = try await store.read { reader in try reader.liveAccountCount(app: app) }
        return windows.map { window in
            Finding(
                code: .notificationGap, subject: nil,
                detail:
                    "no instance was receiving for \(window.durationMilliseconds / 60_000) min; \(live) linked accounts"
                    + " could have had notifications lost in that window",
                window: window)
        }
    }

    /// `identifier-recycled`: every RISC `identifier-recycled` security event of the app received within the
    /// look-back, one finding per account key (the identifier now names another person, RISC 1.0 §2.6).
    private func recycledIdentifierFindings(
        app: String, asOf: Instant, settings: ReconcileConfiguration
    ) async throws -> [Finding] {
        let from = asOf.adding(seconds: -Int64(settings.lookbackHours) * 3600)
        let events = try await store.read { reader in
            try reader.securityEvents(
                app: app, typeURI: SecurityEventType.identifierRecycled.uri, from: from, to: asOf, limit: 10_000)
        }
        var seen: Set<String> = []
        return events.compactMap { event in
            guard seen.insert(event.subject).inserted else { return nil }
            return Finding(
                code: .identifierRecycled, subject: event.subject,
                detail: "the provider reported at \(event.receivedAt.iso8601) that this identifier now names another "
                    + "person: do not merge the new holder with what the app keeps under it",
                window: FindingWindow(from: event.receivedAt, to: asOf))
        }
    }

    private struct MergeResult: Sendable {
        var recordsRead = 0
        var accountsRead = 0
        var registered = 0
        var findings: [Finding] = []
    }

    /// The merge is synchronous and pulls from blocking readers, so it runs on the ``BlockingExecutor`` and
    /// reaches the store through ``BlockingBridge`` (whose reads run on the store's own threads, never on the
    /// executor, so the merge cannot wait for a thread it holds).
    private func mergeOnThread(
        app: AppConfiguration, source: RecordSource?, runID: Int64, asOf: Instant, active: ActiveConfiguration
    ) async throws -> MergeResult {
        // The merge runs on a thread of its own; a cancelled task (serve stopping) tells it through `stop`.
        let stop = MergeStop()
        let result: Result<MergeResult, any Error> = await withTaskCancellationHandler {
            await BlockingExecutor.shared.run { [self] in
                Result { try merge(app: app, source: source, runID: runID, asOf: asOf, active: active, stop: stop) }
            }
        } onCancel: {
            stop.request()
        }
        return try result.get()
    }

    /// `source` nil: the app has no records source, and the merge walks the service's accounts against an
    /// empty app side (``ReconcilerOptions/comparesRecords`` false).
    private func merge(
        app: AppConfiguration, source: RecordSource?, runID: Int64, asOf: Instant, active: ActiveConfiguration,
        stop: MergeStop
    ) throws -> MergeResult {
        let failure = MergeFailure()
        let options = ReconcilerOptions(
            tombstoneStatuses: Set(active.configuration.reconcile.tombstoneStatuses), comparesRecords: source != nil)
        let observedTally = Tally()
        let observed = Stoppable(
            base: ObservedAccountPager(
                store: store, app: app.id, pageSize: Self.pageSize, failure: failure, tally: observedTally),
            stop: stop, failure: failure)
        var result = MergeResult()
        var batch: [Finding] = []

        func flush() throws {
            // Once stopped, or once a source failed, either side may have ended early: what the merge made
            // since is not kept.
            if stop.requested { throw CancellationError() }
            if let error = failure.error { throw error }
            guard !batch.isEmpty else { return }
            let findings = batch
            batch.removeAll(keepingCapacity: true)
            result.findings += findings
            let unknown = findings.filter { $0.code == .unknownToService }.compactMap(\.subject)
            result.registered += unknown.count
            let (store, transitions, clock) = (self.store, active.transitions, self.clock)
            let lease = Int64(active.configuration.reconcile.leaseSeconds)
            try BlockingBridge.wait {
                let now = clock.now()
                try await store.write { writer in
                    try writer.recordFindings(app: app.id, runID: runID, findings: findings, at: now)
                    for subject in unknown {
                        let input = AccountInput(
                            kind: .linked, eventTime: asOf, receivedAt: now, identity: "reconcile-\(runID)")
                        try transitions.apply(
                            TransitionContext(
                                app: app.id, subject: subject, input: input, source: "reconciler", notificationID: nil),
                            in: writer)
                    }
                    try writer.renewReconcileRun(id: runID, leaseUntil: now.adding(seconds: lease))
                }
            }
        }

        let recordsRead = Tally()
        func run<Reader: AppRecordReader>(_ reader: Reader) throws {
            let counting = CountingRecords(
                base: Stoppable(base: AppRecordIterator(reader, failure: failure), stop: stop, failure: failure),
                tally: recordsRead)
            var merge = ReconcilerMerge(appRecords: counting, observedAccounts: observed, asOf: asOf, options: options)
            while let finding = merge.next() {
                batch.append(finding)
                if batch.count >= Self.flushEvery { try flush() }
            }
        }

        // A record naming a provider carries the provider's own identifier, mapped to its account key; the
        // keys then no longer follow the source's order, so those sources go through the external sort too.
        let keys = app.recordKeys
        func sorted<Reader: AppRecordReader>(_ reader: Reader) throws -> SortedRecordReader {
            try SortedRecordReader(StoppableReader(source: reader, stop: stop))
        }
        do {
            switch source {
            case nil:
                try run(NoAppRecords())
            case .sqlite(let path, let query):
                let reader = try SQLiteRecordReader(path: path, query: query, keys: keys, interrupt: stop.interrupt)
                if reader.namesProviders { try run(sorted(reader)) } else { try run(reader) }
            case .postgres(let url, let query):
                let reader = try PostgresRecordReader(
                    url: url, query: query, shownAs: RecordSource.postgres(url: url, query: query).description,
                    keys: keys, interrupt: stop.interrupt)
                if reader.namesProviders { try run(sorted(reader)) } else { try run(reader) }
            case .jsonLines(let path):
                try run(sorted(try JSONLinesRecordReader(path: path, keys: keys)))
            case .csv(let path):
                try run(sorted(try CSVRecordReader(path: path, keys: keys)))
            }
        } catch  where stop.requested {
            throw CancellationError()
        }
        // Stopped, a source's error is the interrupt's.
        if let error = failure.error { throw stop.requested ? CancellationError() : error }
        try flush()
        result.recordsRead = recordsRead.value
        result.accountsRead = observedTally.value
        return result
    }

    package static func summary(_ report: Report) -> JSONValue {
        .array(
            report.apps.map { app in
                var byCode = JSONObject()
                for finding in app.findings {
                    byCode[finding.code.rawValue] = .integer((byCode[finding.code.rawValue]?.integerValue ?? 0) + 1)
                }
                return [
                    ReconcileSummaryKey.app: .string(app.app),
                    ReconcileSummaryKey.recordsCompared: .bool(app.recordsCompared),
                    ReconcileSummaryKey.recordsRead: .integer(Int64(app.recordsRead)),
                    "accountsRead": .integer(Int64(app.accountsRead)), "registered": .integer(Int64(app.registered)),
                    "resolved": .integer(Int64(app.resolved)), "findings": .object(byCode),
                ]
            })
    }
}

/// A count shared with an iterator the merge owns (iterators are values the merge consumes).
final class Tally {
    var value = 0
}

/// Asked for by ``Reconciler/run(app:asOf:)``'s task being cancelled (a stop), read by the merge's thread and
/// by the progress handler of an SQLite records query.
final class MergeStop: Sendable {
    let interrupt = QueryInterrupt()
    var requested: Bool { interrupt.raised }
    func request() { interrupt.raise() }
}

/// A record source that ends with `CancellationError` once a stop is requested: what feeds the external sort,
/// which reads its whole source before the merge sees a record.
struct StoppableReader<Source: AppRecordReader>: AppRecordReader {
    var source: Source
    let stop: MergeStop

    mutating func next() throws -> AppRecord? {
        if stop.requested { throw CancellationError() }
        return try source.next()
    }
}

/// Ends its base once a stop is requested, as a failure of the merge (the run is marked failed), so a run
/// stops within one record of either side rather than reading both to the end.
struct Stoppable<Base: IteratorProtocol>: IteratorProtocol {
    var base: Base
    let stop: MergeStop
    let failure: MergeFailure

    mutating func next() -> Base.Element? {
        guard !stop.requested else {
            if failure.error == nil { failure.error = CancellationError() }
            return nil
        }
        return base.next()
    }
}

/// Counts the app records the merge pulled.
struct CountingRecords<Base: IteratorProtocol>: IteratorProtocol where Base.Element == AppRecord {
    var base: Base
    let tally: Tally

    mutating func next() -> AppRecord? {
        guard let record = base.next() else { return nil }
        tally.value += 1
        return record
    }
}
