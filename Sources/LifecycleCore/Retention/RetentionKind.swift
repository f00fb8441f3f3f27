/// What the service's own store keeps only for a while (the `retention` section of `lifecycle.json`). Each kind
/// names one class of records and what a purge does to it; what is not listed here is kept: an account's row
/// (the tombstone: subject, state, dates — kept as long as suppression requires, CCPA §7022(e)), erasure jobs
/// and their evidence, reconcile runs and the reports.
public enum RetentionKind: String, CaseIterable, Sendable, Hashable {
    /// The sealed raw JWS and e-mail of received notifications: cleared, the row kept (its `jti` and event key
    /// still refuse a replay; its time, type and body hash stay as evidence).
    case notificationPayloads = "notification-payloads"
    /// Records of requests that failed verification (reason, time, size, body hash).
    case rejections
    /// Outbox messages delivered or given up (`delivered`, `dead`), by their last attempt.
    case outbox
    /// Every input an account's state machine saw (the account history), by receipt.
    case history
    /// Findings the reconciler has resolved, by their resolution.
    case findings
    /// The instances' liveness records, which the reconciler reads for notification gaps.
    case heartbeats

    /// The configuration key of its period in days.
    public var configurationKey: String {
        switch self {
        case .notificationPayloads: "notificationPayloadDays"
        case .rejections: "rejectionDays"
        case .outbox: "outboxDays"
        case .history: "historyDays"
        case .findings: "findingDays"
        case .heartbeats: "heartbeatDays"
        }
    }
}
