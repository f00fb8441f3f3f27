import LifecycleCore
import LifecycleStore

/// The app's open reconciler findings and when the reconciler last completed, from the store.
public struct StoreFindingSource: FindingSource {
    let store: any Store
    /// Enough for any report; a real app's open findings are few (each is an incident).
    static let limit = 10_000

    public init(store: any Store) {
        self.store = store
    }

    public func lastReconcile(app: String) async throws -> ReportFindingRun? {
        let (runs, open) = try await store.read { reader in
            (
                try reader.reconcileRuns(limit: 50),
                try reader.findings(app: app, includeResolved: false, limit: Self.limit, afterID: nil)
            )
        }
        guard
            let last = runs.first(where: {
                $0.status == .completed && ($0.app == nil || $0.app == app)
            })
        else { return nil }
        return ReportFindingRun(ranAt: last.finishedAt ?? last.startedAt, findings: open.map(\.finding))
    }
}
