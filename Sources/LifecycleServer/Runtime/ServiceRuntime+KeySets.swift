import AppleNotifications
import LifecycleCore
import LifecycleEngine

/// What `serve` does about key sets that hold nothing: Apple's, whose absence keeps `/readyz` failing, and each
/// security-event provider's. A start whose fetch failed (the network not up yet at boot, the source down) is
/// retried on the cache's own schedule (``JWKSCache/refreshIfUnloaded()``: 5 s, doubling per failure, up to
/// the refresh interval), without waiting for a token: a load balancer sends none to an instance that is not
/// ready, so waiting for one would leave it unready for good.
extension ServiceRuntime {
    /// Runs until cancelled, looking once a second. Logs the outcome of each retry it makes or joins.
    func retryUnloadedKeySets() async {
        let log = context.log
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if !context.keys.hasKeys {
                switch await context.keys.refreshIfUnloaded() {
                case .notDue: break
                case .loaded(let count): log.info("keys.loaded", [("keys", .integer(Int64(count)))])
                case .failed(let error):
                    log.log(.error, "keys.load_failed", [("error", .string(String(describing: error)))])
                }
            }
            for receiver in context.signals.allReceivers where !receiver.keys.hasKeys && !Task.isCancelled {
                let provider = ("provider", JSONValue.string(receiver.provider.id))
                switch await receiver.keys.refreshIfUnloaded() {
                case .notDue: break
                case .loaded(let count):
                    log.log(
                        .info, "signal.keys_loaded", app: receiver.app, [provider, ("keys", .integer(Int64(count)))])
                case .failed(let error):
                    log.log(
                        .error, "signal.keys_load_failed", app: receiver.app,
                        [provider, ("error", .string(String(describing: error)))])
                }
            }
        }
    }
}
