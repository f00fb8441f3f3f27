import LifecycleCore
import LifecycleStore

/// What became of an in-app deletion's Apple token revocation (App Store Review Guideline 5.1.1(v); Apple,
/// "Revoke tokens"): revoked and verified at a time (a `refresh_token` grant answered `invalid_grant`), revoked
/// but unverified, given up, still pending, or no token held — then only the user can revoke, in Settings
/// (Apple, TN3194), and the report says so.
public struct ReportAppleRevocation: Hashable, Sendable {
    /// ``AppleRevocationStatus`` raw value: `verified`, `unverified`, `no-token`, `failed` or `pending`.
    public var status: String
    /// When Apple last accepted `/auth/revoke`.
    public var revokedAt: Instant?
    /// When the `invalid_grant` proved the revocation.
    public var verifiedAt: Instant?
    /// What the user can do when the service could not revoke; nil when it did.
    public var advice: String?

    /// TN3194: when the app cannot revoke, the user removes the app under Settings.
    public static let settingsAdvice =
        "the user revokes in Settings > Apple Account > Sign in with Apple (Apple TN3194)"
    public static let noTokenAdvice = "no Apple token was held: " + settingsAdvice
    public static let failedAdvice = "Apple never accepted the revocation: " + settingsAdvice

    public init(status: String, revokedAt: Instant?, verifiedAt: Instant?, advice: String?) {
        self.status = status
        self.revokedAt = revokedAt
        self.verifiedAt = verifiedAt
        self.advice = advice
    }

    public init(_ stored: StoredAppleRevocation) {
        let advice: String? =
            switch stored.status {
            case .noToken: Self.noTokenAdvice
            case .failed: Self.failedAdvice
            case .pending, .verified, .unverified: nil
            }
        self.init(
            status: stored.status.rawValue, revokedAt: stored.revokedAt, verifiedAt: stored.verifiedAt,
            advice: advice)
    }

    /// One line for the CSV and HTML renderers.
    public var summaryText: String {
        switch status {
        case AppleRevocationStatus.verified.rawValue:
            "revoked and verified at \(verifiedAt?.iso8601 ?? "?")"
        case AppleRevocationStatus.unverified.rawValue:
            "revoked at \(revokedAt?.iso8601 ?? "?"), unverified: the token still worked"
        case AppleRevocationStatus.pending.rawValue: "pending"
        default: "\(status): \(advice ?? "")"
        }
    }
}
