import LifecycleCore

/// `lifecycle_account_transitions_total{from,to}`: applied inputs by the state they moved an account from
/// and to (`from="none"` when the input created the record). Counted by the caller after its transaction
/// committed, so a rolled-back transition is never counted. Stale, duplicate and ignored inputs change
/// nothing and are not counted here; their history rows record them.
public struct AccountTransitionMetrics: Sendable {
    public static let name = "lifecycle_account_transitions_total"

    let transitions: Counter

    /// Registers the family (both ingest and the admin API count into it: the same handle).
    public init(_ metrics: MetricsRegistry) {
        transitions = metrics.counter(Self.name, help: "Applied account inputs by the state moved from and to.")
    }

    public func record(_ outcome: AccountOutcome) {
        guard outcome.disposition == .applied else { return }
        transitions.increment([
            ("from", outcome.history.fromState?.canonicalName ?? "none"), ("to", outcome.state.canonicalName),
        ])
    }
}
