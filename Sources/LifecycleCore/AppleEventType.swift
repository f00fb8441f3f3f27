/// The `type` of one Sign in with Apple server-to-server event.
///
/// Apple announced three types and sends four. The deletion type has two spellings in the wild:
/// `account-delete` (older documentation, nearly all code) and `account-deleted` (current documentation);
/// both decode to ``accountDeleted``. Any other value is kept verbatim as ``unknown(_:)`` so it is recorded,
/// counted and answered 200 rather than dropped or treated as an error.
public enum AppleEventType: Hashable, Sendable {
    case emailDisabled
    case emailEnabled
    case consentRevoked
    case accountDeleted
    case unknown(String)

    /// Decodes Apple's wire value, accepting both deletion spellings.
    public init(wireValue: String) {
        switch wireValue {
        case "email-disabled": self = .emailDisabled
        case "email-enabled": self = .emailEnabled
        case "consent-revoked": self = .consentRevoked
        case "account-delete", "account-deleted": self = .accountDeleted
        default: self = .unknown(wireValue)
        }
    }

    /// The canonical name used in the store, logs, metrics and reports (`account-deleted` for deletion).
    public var canonicalName: String {
        switch self {
        case .emailDisabled: "email-disabled"
        case .emailEnabled: "email-enabled"
        case .consentRevoked: "consent-revoked"
        case .accountDeleted: "account-deleted"
        case .unknown(let raw): raw
        }
    }

    public var isKnown: Bool {
        if case .unknown = self { return false }
        return true
    }
}
