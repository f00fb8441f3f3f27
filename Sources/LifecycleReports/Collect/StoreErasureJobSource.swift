import LifecycleStore

/// Erasure and retention-purge jobs as the store keeps them (``StoreReader/erasureJobs(app:subject:)``),
/// for the collect stage.
public struct StoreErasureJobSource: ErasureJobSource {
    public var store: any Store

    public init(store: any Store) {
        self.store = store
    }

    public func erasureJobs(app: String, subject: String) async throws -> [ReportSubjectJob] {
        try await store.read { reader in try reader.erasureJobs(app: app, subject: subject).map(Self.subjectJob) }
    }

    /// One range read over the page's first to last `sub`, keeping the subjects asked for.
    public func erasureJobs(app: String, subjects: [String]) async throws -> [ReportSubjectJob] {
        guard let first = subjects.first, let last = subjects.last else { return [] }
        let wanted = Set(subjects)
        return try await store.read { reader in
            try reader.erasureJobs(app: app, fromSubject: first, throughSubject: last)
                .filter { wanted.contains($0.subject) }.map(Self.subjectJob)
        }
    }

    static func subjectJob(_ stored: StoredErasureJob) -> ReportSubjectJob {
        ReportSubjectJob(
            subject: stored.subject, job: stored.job, stepsStartedAt: stored.stepsStartedAt,
            cancelReason: stored.cancelReason)
    }
}
