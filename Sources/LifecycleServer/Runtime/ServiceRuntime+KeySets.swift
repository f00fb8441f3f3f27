import AppleNotifications
import LifecycleCore
import LifecycleEngine

/// What `serve` does about key sets that hold nothing: Apple's, whose absence keeps `/readyz` failing, and each
/// security-event provider's. A start whose fetch failed (the network not up yet at boot, the source down) is
/// retried on the cache's own schedule (``JWKSCache/refreshIfUnloaded()``: 5 s, doubling per failure, up to
/// the refresh interval), without waiting for a token: a load balancer sends none to an instance that is not
/// ready, so waiting for one would leave it unready for good.
extension ServiceRuntime {
    /// Runs until cancelled, looking once a second.
    func retryUnloadedKeySets() async {
        let log = context.log
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if !context.keys.hasKeys {
                await retry(context.keys) { error in
                    if let error {
                        log.log(.error, "keys.load_failed", [("error", .string(String(describing: error)))])
                    } else {
                        log.info("keys.loaded", [("keys", .integer(Int64(self.context.keys.statistics.keyCount)))])
                    }
                }
            }
            for receiver in context.signals.allReceivers where !receiver.keys.hasKeys {
                await retry(receiver.keys) { error in
                    let provider = ("provider", JSONValue.string(receiver.provider.id))
                    if let error {
                        log.log(
                            .error, "signal.keys_load_failed", app: receiver.app,
                            [provider, ("error", .string(String(describing: error)))])
                    } else {
                        log.log(
                            .info, "signal.keys_loaded", app: receiver.app,
                            [provider, ("keys", .integer(Int64(receiver.keys.statistics.keyCount)))])
                    }
                }
            }
        }
    }

    /// One retry when the cache's schedule allows it; `report` hears its outcome (nil: loaded).
    private func retry(_ keys: JWKSCache, report: (JWKSError?) -> Void) async {
        let attempts = keys.statistics.refreshes + keys.statistics.failures
        let error = await keys.refreshIfUnloaded()
        guard keys.statistics.refreshes + keys.statistics.failures != attempts else { return }
        report(keys.hasKeys ? nil : error)
    }
}
