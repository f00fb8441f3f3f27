/// One scheduled erasure job as a value type: its frozen plan and one ``ErasureStep`` per target.
///
/// The job's status is derived from its steps, never stored apart from them, so it cannot disagree with the
/// evidence: completed only when every step is `done`; any `unverified` step makes it `unverified`; a step
/// that `failed` makes it `failed` (DOMAIN.md §6: reports must not overstate erasure).
public struct ErasureJob: Hashable, Sendable {
    public let plan: ErasureJobPlan
    /// In the plan's target order, so ``ErasurePlanner/selfTarget`` is last.
    public private(set) var steps: [ErasureStep]
    public private(set) var cancelledAt: Instant?

    /// A new job: one pending step per target, each due at the plan's `notBefore`.
    public init(plan: ErasureJobPlan) {
        self.init(
            plan: plan, steps: plan.targets.map { ErasureStep(target: $0, notBefore: plan.notBefore) },
            cancelledAt: nil)
    }

    /// A job as the store saved it.
    public init(plan: ErasureJobPlan, steps: [ErasureStep], cancelledAt: Instant?) {
        self.plan = plan
        self.steps = steps
        self.cancelledAt = cancelledAt
    }

    public var status: ErasureJobStatus {
        if cancelledAt != nil { return .cancelled }
        if steps.isEmpty { return .unverified }
        if steps.allSatisfy({ $0.status.isFinal }) {
            if steps.contains(where: { $0.status == .failed }) { return .failed }
            if steps.contains(where: { $0.status == .unverified }) { return .unverified }
            return .completed
        }
        return steps.contains(where: { $0.attempts > 0 }) ? .running : .scheduled
    }

    /// When the job reached its final status: the last step's finish, or the cancellation. Nil while open.
    public var finishedAt: Instant? {
        if let cancelledAt { return cancelledAt }
        guard status.isFinished else { return nil }
        return steps.compactMap(\.finishedAt).max()
    }

    /// Not completed and past the deadline at `now` (a cancelled job is never overdue).
    public func isOverdue(at now: Instant) -> Bool {
        switch status {
        case .completed, .cancelled: false
        case .scheduled, .running, .failed, .unverified: plan.deadline < now
        }
    }

    /// The indices of the steps that may start at `now`. The ``ErasurePlanner/selfTarget`` step waits until
    /// every other step is final: the service keeps its own copy (relay e-mail, tokens) while the app's
    /// targets may still need it, and erases it even when another target failed.
    public func runnableSteps(at now: Instant) -> [Int] {
        guard cancelledAt == nil else { return [] }
        let othersFinal = steps.allSatisfy { $0.target == ErasurePlanner.selfTarget || $0.status.isFinal }
        return steps.indices.filter { index in
            steps[index].isDue(at: now) && (steps[index].target != ErasurePlanner.selfTarget || othersFinal)
        }
    }

    /// Starts an attempt of step `index`. False, changing nothing, when the step is not in
    /// ``runnableSteps(at:)``.
    public mutating func startStep(_ index: Int, at now: Instant) -> Bool {
        guard runnableSteps(at: now).contains(index) else { return false }
        return steps[index].start(at: now)
    }

    /// Records a result for step `index`; see ``ErasureStep/record(stepResult:at:retry:random:)``. A cancelled
    /// job or an index out of range ignores it. Read ``status`` afterwards for the job's outcome.
    public mutating func record(
        stepResult: ErasureStepResult, step index: Int, at now: Instant, retry: RetrySchedule, random: Double
    ) -> ErasureStepAction {
        guard cancelledAt == nil, steps.indices.contains(index) else { return .ignored }
        return steps[index].record(stepResult: stepResult, at: now, retry: retry, random: random)
    }

    /// A re-link (DESIGN.md §5: `consent-revoked → linked`) cancels the job if its rule says
    /// `cancelIfRelinked` and it is not finished. Returns whether it was cancelled now.
    public mutating func cancelForRelink(at now: Instant) -> Bool {
        guard plan.cancelIfRelinked, !status.isFinished else { return false }
        cancelledAt = now
        return true
    }

    /// Applies a re-link to every job of a subject; returns the indices of the jobs it cancelled.
    public static func cancelForRelink(_ jobs: inout [ErasureJob], at now: Instant) -> [Int] {
        jobs.indices.filter { jobs[$0].cancelForRelink(at: now) }
    }
}
