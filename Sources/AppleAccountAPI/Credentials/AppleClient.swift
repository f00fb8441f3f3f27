/// One client ID of an app and how it signs in: the `sub` of its client secret and the `client_id` of every
/// REST call. A code must be exchanged under the client ID it was issued for (Apple, "Generate and validate
/// tokens").
public struct AppleClient: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Sign in on an Apple device (AuthenticationServices): the client ID is the app's bundle ID.
        case native
        /// Sign in with Apple JS or another platform: the client ID is the Services ID, and a code exchange
        /// sends the `redirect_uri` the authorization used.
        case web
    }

    public var id: String
    public var kind: Kind

    public init(id: String, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    public var description: String { "\(id) (\(kind.rawValue))" }
}
