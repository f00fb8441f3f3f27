/// Where the collect stage reads an account's erasure and retention-purge jobs. A protocol so the report
/// pipeline does not depend on how jobs are stored; ``NoErasureJobs`` (no job known) is the default, and
/// every request then reads `pending` with verification `none`.
public protocol ErasureJobSource: Sendable {
    /// Every job of one account (any trigger, any status), oldest first.
    func erasureJobs(app: String, subject: String) async throws -> [ReportSubjectJob]
    /// The jobs of several accounts, `subjects` in `sub` byte order: by subject, each oldest first.
    func erasureJobs(app: String, subjects: [String]) async throws -> [ReportSubjectJob]
}

extension ErasureJobSource {
    /// The jobs of several accounts, `subjects` in `sub` byte order, by subject then oldest first. A source
    /// that can read them at once (``StoreErasureJobSource``: one range read per page) overrides this.
    public func erasureJobs(app: String, subjects: [String]) async throws -> [ReportSubjectJob] {
        var jobs: [ReportSubjectJob] = []
        for subject in subjects { jobs += try await erasureJobs(app: app, subject: subject) }
        return jobs
    }
}

/// Where the collect stage reads the last reconcile run of an app (DESIGN.md §8). ``NoFindings`` (no run
/// known) is the default.
public protocol FindingSource: Sendable {
    /// The findings of the app's most recent reconcile run, nil when it never ran.
    func lastReconcile(app: String) async throws -> ReportFindingRun?
}

/// No erasure job is known.
public struct NoErasureJobs: ErasureJobSource {
    public init() {}
    public func erasureJobs(app: String, subject: String) async throws -> [ReportSubjectJob] { [] }
}

/// No reconcile run is known.
public struct NoFindings: FindingSource {
    public init() {}
    public func lastReconcile(app: String) async throws -> ReportFindingRun? { nil }
}
