/// The account events an erasure rule can start on (`rules[].on` in a policy, DESIGN.md §7).
///
/// `credentials-invalid` is not a trigger: it ends sessions but schedules no rule, since `invalid_grant` does
/// not prove a revoked consent (``AccountStateMachine``).
public enum PolicyTrigger: String, Hashable, Sendable, CaseIterable {
    case accountDeleted = "account-deleted"
    case inAppDeletion = "in-app-deletion"
    case consentRevoked = "consent-revoked"

    /// Decodes a canonical name as a policy or the store wrote it.
    public init?(canonicalName: String) {
        self.init(rawValue: canonicalName)
    }

    public var canonicalName: String { rawValue }

    /// How the trigger reads in a sentence of a policy explanation.
    public var plainWords: String {
        switch self {
        case .accountDeleted: "the user's Apple Account is deleted"
        case .inAppDeletion: "the user deletes the account in the app"
        case .consentRevoked: "the user stops using Sign in with Apple with the app"
        }
    }
}
