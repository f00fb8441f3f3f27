import AppleNotifications
import LifecycleCore

/// What happened to one incoming notification. Decides the HTTP answer (DESIGN.md §4): 200 for the first
/// three (only after the commit), 400 for `rejected`, 503 for `unavailable` so that Apple retries.
public enum IngestOutcome: Sendable, Equatable {
    /// Verified and stored; `account` says what the state machine made of it (applied, stale, duplicate,
    /// ignored after deletion).
    case accepted(notificationID: Int64, app: String, type: AppleEventType, account: AccountOutcome)
    /// Already stored under the same `jti`, or the same (app, sub, type, event_time) under another `jti`.
    case duplicate(existingID: Int64)
    /// Verified and stored, but the `type` is not one this service acts on: recorded, counted, never dropped.
    case ignored(notificationID: Int64, app: String, type: String)
    /// Could not be verified. The attempt is recorded without its body.
    case rejected(VerificationError)
    /// The service cannot store or cannot load keys right now; the sender should retry.
    case unavailable(String)

    /// The label used in metrics and logs.
    public var outcomeName: String {
        switch self {
        case .accepted: "accepted"
        case .duplicate: "duplicate"
        case .ignored: "ignored"
        case .rejected: "rejected"
        case .unavailable: "unavailable"
        }
    }
}
