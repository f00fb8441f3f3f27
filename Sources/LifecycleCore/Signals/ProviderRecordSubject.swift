/// How an app's own records name an account of one of its identity providers, so that a record carrying the
/// provider's own identifier (Google's `sub`, an Okta user's address) is matched to the account the provider's
/// Security Event Tokens keyed: the RFC 9493 §3 format those tokens identify the account in, and for `iss_sub`
/// the issuer the identifier is scoped to.
///
/// Google's Cross-Account Protection identifies accounts as `iss-sub` under `https://accounts.google.com/`
/// (Google's RISC guide), an RFC 9493 `iss_sub`, hence the default: the app keeps the `sub` of its users'
/// ID tokens, and the issuer is the provider's.
public struct ProviderRecordSubject: Hashable, Sendable {
    /// The RFC 9493 formats the SET verifier keys accounts in: one identifier beside the format, and for
    /// `iss_sub` its issuer before it.
    public static let formats = ["iss_sub", "opaque", "email", "phone_number", "account", "uri", "did"]

    /// One of ``formats``.
    public var format: String
    /// The `iss` of an `iss_sub` identifier; nil for every other format.
    public var issuer: String?

    public init(format: String, issuer: String?) {
        self.format = format
        self.issuer = issuer
    }

    /// The default for a provider: `iss_sub` under the provider's own issuer.
    public static func issSub(issuer: String) -> ProviderRecordSubject {
        ProviderRecordSubject(format: "iss_sub", issuer: issuer)
    }

    /// The store key of the account `identifier` names under `provider`: the key the provider's SETs give it
    /// (``ProviderSubject/accountKey``). An `email` identifier is lowercased, as the SET decoding does.
    public func accountKey(provider: String, identifier: String) -> String {
        let values: [String]
        switch format {
        case "iss_sub": values = [issuer ?? "", identifier]
        case "email": values = [identifier.lowercased()]
        default: values = [identifier]
        }
        return ProviderSubject(provider: provider, format: format, values: values).accountKey
    }
}
