/// What one account event schedules under one policy: the erasure jobs and the retained categories with their
/// purge dates.
public struct ErasurePlan: Hashable, Sendable {
    /// One per matching rule, in the policy's `rules[]` order.
    public var jobs: [ErasureJobPlan]
    /// One per `retain[]` entry on a deletion trigger; empty on a revocation.
    public var retentions: [RetentionPlan]

    public init(jobs: [ErasureJobPlan], retentions: [RetentionPlan]) {
        self.jobs = jobs
        self.retentions = retentions
    }
}
