/// Where one Apple `sub` stands with one app (DESIGN.md §5).
///
/// The raw values are the canonical names used in the store, logs, metrics and reports.
public enum AccountState: String, Hashable, Sendable, CaseIterable {
    /// Signed in with Apple, relay e-mail forwarding on (or never reported off).
    case linked = "linked"
    /// Signed in with Apple, the user turned relay e-mail forwarding off (`email-disabled`).
    case emailOff = "email-off"
    /// The user stopped using Sign in with Apple with the app: credentials are invalid, sessions end.
    /// A newer sign-in (`linked`) re-links.
    case consentRevoked = "consent-revoked"
    /// The Apple Account was deleted, or the user deleted the account in the app. Terminal.
    case deleted = "deleted"

    /// Decodes a canonical name as the store saved it.
    public init?(canonicalName: String) {
        self.init(rawValue: canonicalName)
    }

    public var canonicalName: String { rawValue }
}
