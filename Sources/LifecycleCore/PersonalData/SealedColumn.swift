/// Every place the service keeps a sealed personal value: a column of one of its tables, and the scope whose
/// data key seals it. A new kind of personal value is a new case here, so erasure, export, rotation and the
/// upgrade of old stores cover it without special cases.
public enum SealedColumn: String, Hashable, Sendable, CaseIterable {
    /// The relay e-mail address of an e-mail event.
    case notificationEmail = "notifications.sealed_email"
    /// The compact JWS of a notification as received (evidence of what Apple sent).
    case notificationToken = "notifications.sealed_raw_jws"
    /// The Apple refresh token of an account, in the token vault.
    case appleRefreshToken = "apple_tokens.sealed_refresh_token"

    public var scope: SubjectKeyScope {
        switch self {
        case .notificationEmail, .notificationToken: .notifications
        case .appleRefreshToken: .appleTokens
        }
    }

    /// `table.column`, the name bound into each sealed value's associated data.
    public var qualifiedName: String { rawValue }
}
