import LifecycleStore

/// Erasure and retention-purge jobs as the store keeps them (``StoreReader/erasureJobs(app:subject:)``),
/// for the collect stage.
public struct StoreErasureJobSource: ErasureJobSource {
    public var store: any Store

    public init(store: any Store) {
        self.store = store
    }

    public func erasureJobs(app: String, subject: String) async throws -> [ReportSubjectJob] {
        try await store.read { reader in
            try reader.erasureJobs(app: app, subject: subject).map {
                ReportSubjectJob(
                    subject: $0.subject, job: $0.job, stepsStartedAt: $0.stepsStartedAt, cancelReason: $0.cancelReason)
            }
        }
    }
}
