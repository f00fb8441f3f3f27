import LifecycleCore
import LifecycleStore

/// The app's open reconciler findings, when the reconciler last completed for it and what that run compared
/// (`recordsCompared`, `recordsRead` from its summary), from the store.
public struct StoreFindingSource: FindingSource {
    let store: any Store
    /// Enough for any report; a real app's open findings are few (each is an incident).
    static let limit = 10_000

    public init(store: any Store) {
        self.store = store
    }

    /// Runs looked back through for the app's last completed one: every app's runs and failed ones count, so
    /// years of daily runs.
    static let runsSearched = 2_000

    public func lastReconcile(app: String) async throws -> ReportFindingRun? {
        let (runs, open) = try await store.read { reader in
            (
                try reader.reconcileRuns(limit: Self.runsSearched),
                try reader.findings(app: app, includeResolved: false, limit: Self.limit, afterID: nil)
            )
        }
        guard
            let last = runs.first(where: {
                $0.status == .completed && ($0.app == nil || $0.app == app)
            })
        else { return nil }
        // The run's own record of what it compared for this app (Reconciler.summary).
        let entry = last.summary.flatMap { JSONValue.parseIfValid(Array($0.utf8))?.arrayValue }?
            .first { $0[ReconcileSummaryKey.app]?.stringValue == app }
        return ReportFindingRun(
            ranAt: last.finishedAt ?? last.startedAt, findings: open.map(\.finding),
            recordsCompared: entry?[ReconcileSummaryKey.recordsCompared]?.boolValue,
            recordsRead: entry?[ReconcileSummaryKey.recordsRead]?.integerValue.map { Int($0) })
    }
}
