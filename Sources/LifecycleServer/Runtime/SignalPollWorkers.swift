import LifecycleCore
import LifecycleEngine
import Synchronization

/// The poll workers of `serve` (``SecurityEventPoller``), one per poll stream of the configuration in force.
/// After a reload ``reconcile(_:)`` starts the workers of streams that appeared and stops those of streams
/// that went (or turned to push); a stream that stays keeps its worker, which reads its changed settings at
/// its next poll. ``stopAll()`` (SIGTERM) cancels them and waits for each to report what it still holds.
final class SignalPollWorkers: Sendable {
    private let context: ServiceContext
    private let environment: [String: String]
    private let metrics: SecurityEventPollMetrics
    private let workers = Mutex<[String: Task<Void, Never>]>([:])
    private let stopped = Mutex(false)

    init(context: ServiceContext, environment: [String: String]) {
        self.context = context
        self.environment = environment
        metrics = SecurityEventPollMetrics(context.metrics)
    }

    /// The `app/provider` of every poll stream of the configuration in force.
    private func wanted() -> [(app: String, provider: String)] {
        context.configuration.apps.flatMap { app in
            app.signals.filter { $0.stream.delivery == .poll }.map { (app.id, $0.id) }
        }
    }

    /// Brings the running workers in line with the configuration in force.
    func reconcile() {
        let context = self.context
        let wanted = wanted()
        let keys = Set(wanted.map { "\($0.app)/\($0.provider)" })
        let gone: [Task<Void, Never>] = workers.withLock { workers in
            guard !stopped.withLock({ $0 }) else { return [] }
            var gone: [Task<Void, Never>] = []
            for (key, task) in workers where !keys.contains(key) {
                gone.append(task)
                workers[key] = nil
            }
            for stream in wanted where workers["\(stream.app)/\(stream.provider)"] == nil {
                let poller = SecurityEventPoller(
                    app: stream.app, provider: stream.provider, current: { context.signals }, log: context.log,
                    clock: context.clock, metrics: metrics, environment: environment)
                workers["\(stream.app)/\(stream.provider)"] = Task { await poller.run() }
                context.log.log(.info, "signal.poll_started", app: stream.app, [("provider", .string(stream.provider))])
            }
            return gone
        }
        for task in gone { task.cancel() }
    }

    /// Cancels every worker and waits until each has ended.
    func stopAll() async {
        stopped.withLock { $0 = true }
        let tasks = workers.withLock { workers in
            defer { workers = [:] }
            return Array(workers.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
