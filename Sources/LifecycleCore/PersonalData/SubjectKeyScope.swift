/// A group of one subject's personal values that the service seals under one data key of its own, so that
/// erasing the group destroys that key and nothing else (crypto-shredding, NIST SP 800-88 Rev. 1 §2.6
/// "cryptographic erase"). Policies erase categories at different times — the shipped `kr-pipa` policy erases
/// Apple tokens within 5 days of a revocation but the profile only after a 30-day window a re-link cancels —
/// hence one key per scope and subject rather than one per subject.
public enum SubjectKeyScope: String, Hashable, Sendable, CaseIterable, Comparable {
    /// What Apple's notifications carry: the relay e-mail address and the signed token as received (the raw
    /// JWS holds the e-mail claim of e-mail events, so the two go together).
    case notifications
    /// Apple refresh tokens kept for revocation and credential probes.
    case appleTokens = "apple-tokens"

    public init?(canonicalName: String) { self.init(rawValue: canonicalName) }

    public var canonicalName: String { rawValue }

    /// The categories whose erasure destroys this scope's key.
    public var erasedBy: Set<DataCategory> {
        switch self {
        case .notifications: [.relayEmail, .profile]
        case .appleTokens: [.appleTokens]
        }
    }

    /// The scopes an erasure of `categories` destroys.
    public static func erased(by categories: some Sequence<DataCategory>) -> Set<SubjectKeyScope> {
        let erased = Set(categories)
        return Set(allCases.filter { !$0.erasedBy.isDisjoint(with: erased) })
    }

    public static func < (lhs: SubjectKeyScope, rhs: SubjectKeyScope) -> Bool { lhs.rawValue < rhs.rawValue }
}
