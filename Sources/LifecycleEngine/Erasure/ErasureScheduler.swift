import LifecycleCore
import LifecycleStore

/// Schedules erasure inside the transition's transaction (DESIGN.md §7): one job per (input, rule) under the
/// app's policy, each with its absolute window and frozen `id@version#sha256`, plus a purge job per retained
/// category on a deletion; and cancels re-link-cancellable jobs on a re-link.
///
/// Built from one configuration: a reload builds a new scheduler, and jobs already stored keep the window and
/// reference they were planned with, so editing a policy never changes scheduled work.
public struct ErasureScheduler: ErasureScheduling {
    /// What scheduling needs of one app, resolved once.
    struct AppPlan: Sendable {
        var policy: ErasurePolicy
        var reference: String
        var categories: [String: [String]]
    }

    let apps: [String: AppPlan]

    /// The reason recorded on jobs a re-link cancels.
    public static let relinkReason = "relinked"

    public init(configuration: ServiceConfiguration) {
        var apps: [String: AppPlan] = [:]
        for app in configuration.apps {
            guard let erasure = app.erasure, let policy = configuration.policies[erasure.policyID] else { continue }
            apps[app.id] = AppPlan(
                policy: policy, reference: PolicyLibrary.frozenReference(policy), categories: erasure.categories)
        }
        self.apps = apps
    }

    /// The frozen reference jobs of `app` get now; nil when the app maps no erasure.
    public func policyReference(app: String) -> String? { apps[app]?.reference }

    public func schedule(trigger: PolicyTrigger, context: TransitionContext, in writer: any StoreWriter) throws {
        guard let app = apps[context.app] else { return }
        let plan = ErasurePlanner.plan(
            policy: app.policy, policyReference: app.reference, categoryTargets: app.categories, trigger: trigger,
            eventTime: context.input.eventTime)
        let createdAt = context.input.receivedAt
        for job in plan.jobs {
            try writer.insertErasureJob(app: context.app, subject: context.subject, plan: job, createdAt: createdAt)
        }
        for retention in plan.retentions {
            try writer.insertErasureJob(
                app: context.app, subject: context.subject,
                plan: retention.purgeJob(categoryTargets: app.categories), createdAt: createdAt)
        }
    }

    /// `lifecycle reconcile --after-restore`: the app restored its database from a backup, so a subject it
    /// had erased holds data again (a `retained-after-deletion` finding). Schedules the jobs the deletion's
    /// rules plan under the app's policy in force, due now (a rule's waiting period already passed once) and
    /// with its deadline counted from now. A rule whose job for this subject is still scheduled or running
    /// (a previous `--after-restore` that has not run yet) gets no second one, so running the command again
    /// before `serve` has erased is harmless. Returns the new jobs' ids; none when the app maps no erasure.
    public func scheduleAgain(
        app: String, subject: String, trigger: PolicyTrigger, at now: Instant, in writer: any StoreWriter
    ) throws -> [Int64] {
        guard let plan = apps[app] else { return [] }
        let planned = ErasurePlanner.plan(
            policy: plan.policy, policyReference: plan.reference, categoryTargets: plan.categories, trigger: trigger,
            eventTime: now)
        let open = Set(
            try writer.erasureJobs(app: app, subject: subject)
                .filter { $0.status == .scheduled || $0.status == .running }
                .map { OpenRule(origin: $0.job.plan.origin, trigger: $0.job.plan.trigger) })
        return try planned.jobs.filter { !open.contains(OpenRule(origin: $0.origin, trigger: $0.trigger)) }.map { job in
            var job = job
            job.notBefore = now
            return try writer.insertErasureJob(app: app, subject: subject, plan: job, createdAt: now)
        }
    }

    /// A rule of the policy and the event that set it off: what makes two erasure jobs the same request.
    private struct OpenRule: Hashable {
        var origin: ErasureJobOrigin
        var trigger: PolicyTrigger
    }

    public func cancelForRelink(context: TransitionContext, in writer: any StoreWriter) throws {
        try writer.cancelErasureJobsForRelink(
            app: context.app, subject: context.subject, at: context.input.receivedAt,
            reason: "\(Self.relinkReason) (\(context.input.kind.canonicalName) at \(context.input.eventTime.iso8601))")
    }
}
