/// The kinds of personal data a policy can erase or retain. This is the one list of known categories:
/// policies are validated against it and the service's configuration maps each to the app's targets
/// (DESIGN.md §7). Adding a category means adding a case here and documenting it.
public enum DataCategory: String, Hashable, Sendable, CaseIterable {
    /// The user's account profile in the app (name, e-mail as given, settings).
    case profile = "profile"
    /// What the user created or uploaded in the app.
    case content = "content"
    /// Apple access and refresh tokens the service or app stores.
    case appleTokens = "apple-tokens"
    /// The private relay e-mail address (`privaterelay.appleid.com`) and mail sent to it.
    case relayEmail = "relay-email"
    /// Contract, withdrawal and payment records (KR: Electronic Commerce Act, 5 years).
    case paymentRecords = "payment-records"
    /// Log-in records (KR: Protection of Communications Secrets Act, 3 months).
    case loginRecords = "login-records"
    /// Consumer complaint and dispute records (KR: Electronic Commerce Act, 3 years).
    case complaintRecords = "complaint-records"
    /// Records of advertising and labelling (KR: Electronic Commerce Act, 6 months).
    case advertisingRecords = "advertising-records"

    /// Decodes a canonical name as a policy or the store wrote it.
    public init?(canonicalName: String) {
        self.init(rawValue: canonicalName)
    }

    public var canonicalName: String { rawValue }

    /// The canonical names, in declaration order, as validator messages list them.
    public static var canonicalNames: [String] { allCases.map(\.rawValue) }
}
