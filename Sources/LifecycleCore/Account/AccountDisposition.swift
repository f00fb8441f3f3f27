/// What the machine did with one input. Every input gets one and is recorded in history, whatever it is.
public enum AccountDisposition: Hashable, Sendable {
    /// The input is the newest of its aspect (or a deletion) and was applied; the state may be unchanged
    /// (a refresh such as `linked` while linked).
    case applied
    /// Older than the last applied input of its aspect: recorded, changes nothing.
    case stale
    /// Same kind and `event_time` as the last applied input of its aspect: recorded, changes nothing.
    case duplicate
    /// Not applicable in the current state: recorded, changes nothing.
    case ignored(AccountIgnoreReason)

    /// Decodes what the store saved: the canonical name and, for `ignored`, the reason text.
    public init?(canonicalName: String, reason: String? = nil) {
        switch canonicalName {
        case "applied": self = .applied
        case "stale": self = .stale
        case "duplicate": self = .duplicate
        case "ignored":
            guard let reason = reason.flatMap(AccountIgnoreReason.init(rawValue:)) else { return nil }
            self = .ignored(reason)
        default: return nil
        }
    }

    /// The reason text for `ignored`, nil otherwise.
    public var reason: String? {
        switch self {
        case .applied, .stale, .duplicate: nil
        case .ignored(let reason): reason.rawValue
        }
    }

    /// The stable name stored in history and shown in reports.
    public var canonicalName: String {
        switch self {
        case .applied: "applied"
        case .stale: "stale"
        case .duplicate: "duplicate"
        case .ignored: "ignored"
        }
    }
}

/// Why an input was ignored. The raw value is the human text stored in history.
public enum AccountIgnoreReason: String, Hashable, Sendable, CaseIterable {
    /// The account is deleted: deletion is terminal (DESIGN.md §5).
    case accountDeleted = "account deleted"
}
