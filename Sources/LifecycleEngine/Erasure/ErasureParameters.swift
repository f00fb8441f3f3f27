import LifecycleCore

/// The named parameters every SQL erasure statement and verification query may use: `:sub` (the store's key
/// of the account), `:provider` (`apple`, or the id of the app's signals provider the account belongs to) and
/// `:provider_sub` (the provider's own identifier: Apple's `sub`, or the last part of a provider key, e.g.
/// Google's `sub` of an `iss_sub` subject or the address of an `email` one). An app keeping Google's `sub` in
/// its own column erases with `... WHERE google_sub = :provider_sub AND :provider = 'google'`.
enum ErasureParameters {
    static let names = ["sub", "provider", "provider_sub"]

    static func forAccount(_ subject: String) -> [String: String] {
        guard let provider = ProviderSubject(accountKey: subject) else {
            return ["sub": subject, "provider": "apple", "provider_sub": subject]
        }
        return ["sub": subject, "provider": provider.provider, "provider_sub": provider.values.last ?? ""]
    }
}
