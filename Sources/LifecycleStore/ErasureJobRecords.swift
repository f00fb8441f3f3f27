import LifecycleCore

/// One stored erasure job: who it is for, its frozen plan and steps as the LifecycleCore value, and the
/// bookkeeping only the store keeps (ids, creation, the cancellation reason).
public struct StoredErasureJob: Sendable, Hashable {
    public var id: Int64
    public var app: String
    public var subject: String
    /// Plan, steps and cancellation: ``ErasureJob/status`` is the job's status.
    public var job: ErasureJob
    public var createdAt: Instant
    /// Why the job was cancelled (e.g. `relinked`), nil unless cancelled.
    public var cancelReason: String?
    /// Per step (same order as `job.steps`): when its first attempt started, nil before any.
    public var stepsStartedAt: [Instant?]

    public init(
        id: Int64, app: String, subject: String, job: ErasureJob, createdAt: Instant, cancelReason: String?,
        stepsStartedAt: [Instant?]
    ) {
        self.id = id
        self.app = app
        self.subject = subject
        self.job = job
        self.createdAt = createdAt
        self.cancelReason = cancelReason
        self.stepsStartedAt = stepsStartedAt
    }

    public var status: ErasureJobStatus { job.status }
}

/// One step a runner claimed: the job it belongs to (with the step already marked `running` and its attempt
/// counted) and the step's index in `job.job.steps`.
public struct ClaimedErasureStep: Sendable, Hashable {
    public var job: StoredErasureJob
    public var stepIndex: Int

    public init(job: StoredErasureJob, stepIndex: Int) {
        self.job = job
        self.stepIndex = stepIndex
    }

    public var step: ErasureStep { job.job.steps[stepIndex] }
}

/// Steps per target and status, for metrics.
public struct ErasureStepCount: Sendable, Hashable {
    public var target: String
    public var status: ErasureStepStatus
    public var count: Int

    public init(target: String, status: ErasureStepStatus, count: Int) {
        self.target = target
        self.status = status
        self.count = count
    }
}
