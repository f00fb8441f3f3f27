extension PolicyTrigger {
    /// `account-deleted` or `in-app-deletion`: the account is gone, so retention periods start.
    public var isDeletion: Bool {
        switch self {
        case .accountDeleted, .inAppDeletion: true
        case .consentRevoked: false
        }
    }
}
