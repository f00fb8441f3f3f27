/// How the app's records are matched to the store's accounts per identity provider: a record that names a
/// provider (`provider`) carries that provider's own identifier in `sub`, mapped to the account key its
/// security events are stored under (``ProviderRecordSubject``); a record naming no provider, or `apple`,
/// carries the store's key itself (an Apple `sub`, or a key a provider's account already has).
public struct AppRecordKeys: Hashable, Sendable {
    /// The provider id the records use for Sign in with Apple: the `sub` is taken as it is.
    public static let apple = "apple"

    /// The app's configured providers other than Apple, by id.
    public var providers: [String: ProviderRecordSubject]

    public init(providers: [String: ProviderRecordSubject]) {
        self.providers = providers
    }

    /// Records of an app with no provider but Apple.
    public static let appleOnly = AppRecordKeys(providers: [:])

    /// The store key of a record's `sub` under `provider`; nil when the app configures no such provider.
    public func accountKey(provider: String?, sub: String) -> String? {
        guard let provider, provider != Self.apple else { return sub }
        return providers[provider]?.accountKey(provider: provider, identifier: sub)
    }

    /// The providers a record may name, for an error that lists them: `apple` first, then by id.
    public var names: [String] { [Self.apple] + providers.keys.sorted() }
}
