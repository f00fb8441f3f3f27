import AppleNotifications
import LifecycleCore
import SharedSignals

/// What happened to one pushed Security Event Token. Decides the HTTP answer (RFC 8935 §2.2–2.4): 202 for
/// `accepted` and `duplicate`, only after the commit; 400 with the RFC 8935 `err` for `rejected`; 503 for
/// `unavailable`, so the transmitter retries.
public enum SecurityEventOutcome: Sendable, Equatable {
    /// Verified and stored. `account` is what the account's state machine made of it; nil when the event is
    /// recorded only (verification, unknown and record-only types, a subject naming no account).
    case accepted(notificationID: Int64, type: SecurityEventType, account: AccountOutcome?)
    /// Already stored: the same `jti` from this provider, or the same event of the same account again.
    case duplicate(existingID: Int64)
    /// Refused; the reason says why, and maps to the RFC 8935 `err`.
    case rejected(VerificationError)
    /// The store or the provider's keys are unavailable; the transmitter should retry.
    case unavailable(String)

    public var outcomeName: String {
        switch self {
        case .accepted: "accepted"
        case .duplicate: "duplicate"
        case .rejected: "rejected"
        case .unavailable: "unavailable"
        }
    }
}
