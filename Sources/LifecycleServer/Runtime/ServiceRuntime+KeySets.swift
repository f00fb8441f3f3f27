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
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            await retry(context.keys, loaded: "keys.loaded", failed: "keys.load_failed")
            for receiver in context.signals.allReceivers where !Task.isCancelled {
                await retry(
                    receiver.keys, loaded: "signal.keys_loaded", failed: "signal.keys_load_failed", app: receiver.app,
                    [("provider", .string(receiver.provider.id))])
            }
        }
    }

    /// One key set's retry, when it holds nothing and its schedule allows: `loaded` with the key count, or
    /// `failed` with the error, after `fields`.
    private func retry(
        _ keys: JWKSCache, loaded: String, failed: String, app: String? = nil, _ fields: [(String, JSONValue)] = []
    ) async {
        guard !keys.hasKeys else { return }
        switch await keys.refreshIfUnloaded() {
        case .notDue: break
        case .loaded(let count): context.log.log(.info, loaded, app: app, fields + [("keys", .integer(Int64(count)))])
        case .failed(let error):
            context.log.log(.error, failed, app: app, fields + [("error", .string(String(describing: error)))])
        }
    }
}
