import LifecycleCore
import LifecycleEngine

extension ServiceRuntime {
    /// How often `serve` purges what the `retention` section says has expired: at start, then once a day.
    static let retentionInterval: Duration = .seconds(86_400)

    /// The daily retention purge (``RetentionPurger``), under the settings in force at each run (a reload
    /// applies to the next). A failed purge is logged and tried again at the next run; nothing it would have
    /// removed is lost, only kept a day longer.
    func retentionLoop() async {
        let purger = RetentionPurger(store: context.store, log: context.log, metrics: context.metrics)
        while !Task.isCancelled {
            do {
                if try await purger.run(context.configuration.retention, asOf: context.clock.now()) == nil {
                    context.log.info("retention.skipped", [("reason", "another instance is purging")])
                }
            } catch {
                context.log.log(.error, "retention.failed", [("error", .string(Self.oneLine(error)))])
            }
            try? await Task.sleep(for: Self.retentionInterval)
        }
    }
}
