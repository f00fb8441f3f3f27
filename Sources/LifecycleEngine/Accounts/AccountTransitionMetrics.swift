import LifecycleCore

/// `lifecycle_account_transitions_total{from,to}`: applied inputs by the state they moved an account from
/// and to (`from="none"` when the input created the record). Counted by the caller after its transaction
/// committed, so a rolled-back transition is never counted. Stale, duplicate and ignored inputs change
/// nothing and are not counted here; their history rows record them.
public enum AccountTransitionMetrics {
    public static let name = "lifecycle_account_transitions_total"

    public static func describe(in metrics: MetricsRegistry) {
        metrics.describe(name, kind: "counter", help: "Applied account inputs by the state moved from and to.")
    }

    public static func record(_ outcome: AccountOutcome, in metrics: MetricsRegistry) {
        guard outcome.disposition == .applied else { return }
        metrics.increment(
            name,
            [("from", outcome.history.fromState?.canonicalName ?? "none"), ("to", outcome.state.canonicalName)])
    }
}
