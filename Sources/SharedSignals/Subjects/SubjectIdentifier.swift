import AppleNotifications
import LifecycleCore

/// A subject identifier as a transmitter names it: RFC 9493 §3 (`format` with its members, SSF 1.0 §3.2's
/// `complex` with a `user`), or Google's RISC form (`subject_type` `iss-sub` / `id_token_claims`, which are
/// RFC 9493 `iss_sub`).
///
/// ``Kind/account`` identifiers name an account and become a ``ProviderSubject``; a `token` subject (Google's
/// `oauth_token`, identified by a prefix or hash) or a stream subject names no account this service keeps.
public struct SubjectIdentifier: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// RFC 9493 formats that identify an account: the format and its members in order.
        case account(format: String, values: [String])
        /// An OAuth token identified by `prefix` or `hash_base64_sha512_sha512` (Google): which account it
        /// belongs to is not in the SET.
        case token
    }

    public var kind: Kind

    /// Longest member value accepted, in bytes: identifiers are short, and the value becomes a store key.
    public static let maximumValueBytes = 1024
    /// How deep `aliases` and `complex` may nest before the identifier is refused.
    static let maximumDepth = 3

    public init(kind: Kind) {
        self.kind = kind
    }

    /// Decodes `value`; throws `malformed_event` naming the problem (never the identifier's value).
    public init(decoding value: JSONValue) throws(VerificationError) {
        self = try Self.decode(value, depth: 0)
    }

    /// The store key under `provider`, nil for a subject that names no account.
    public func providerSubject(provider: String) -> ProviderSubject? {
        switch kind {
        case .account(let format, let values): ProviderSubject(provider: provider, format: format, values: values)
        case .token: nil
        }
    }

    /// The identifier after a RISC `identifier-changed` (RISC 1.0 §2.5) whose `new-value` is `newValue`: the
    /// same format with the new value, normalised as ``init(decoding:)`` does (an e-mail address lowercased).
    /// Nil when the format is not one a change can carry (only `email` and `phone_number` are single values
    /// a person changes) or the value is the current one.
    public func changed(to newValue: String) -> SubjectIdentifier? {
        guard case .account(let format, let values) = kind else { return nil }
        let changed: String
        switch format {
        case "email": changed = newValue.lowercased()
        case "phone_number": changed = newValue
        default: return nil
        }
        guard values != [changed] else { return nil }
        return Self.account(format, [changed])
    }

    private static func decode(_ value: JSONValue, depth: Int) throws(VerificationError) -> SubjectIdentifier {
        guard depth <= maximumDepth else {
            throw VerificationError(.malformedEvent, "subject identifier nests too deeply")
        }
        guard case .object(let members) = value else {
            throw VerificationError(.malformedEvent, "subject identifier is not an object")
        }
        if case .string(let type)? = members["subject_type"] {
            return try googleSubject(type: type, members)
        }
        guard case .string(let format)? = members["format"] else {
            throw VerificationError(.malformedEvent, "subject identifier has no string \"format\"")
        }
        switch format {
        case "iss_sub":
            return account("iss_sub", [try member("iss", members), try member("sub", members)])
        case "email":
            return account("email", [try member("email", members).lowercased()])
        case "opaque":
            return account("opaque", [try member("id", members)])
        case "account", "uri":
            return account(format, [try member("uri", members)])
        case "phone_number":
            return account("phone_number", [try member("phone_number", members)])
        case "did":
            return account("did", [try member("url", members)])
        case "aliases":
            guard case .array(let identifiers)? = members["identifiers"], !identifiers.isEmpty else {
                throw VerificationError(.malformedEvent, "aliases subject has no \"identifiers\"")
            }
            // RFC 9493 §3.2.5: every alias names the same subject; the first one this service reads is the key,
            // so a transmitter that always lists them in the same order always yields the same account.
            for identifier in identifiers {
                if let decoded = try? decode(identifier, depth: depth + 1), case .account = decoded.kind {
                    return decoded
                }
            }
            throw VerificationError(.malformedEvent, "no alias has a supported format")
        case "complex":
            // SSF 1.0 §3.2: `user` names the account; `session`, `device`, `tenant` only qualify it.
            guard let user = members["user"] else {
                throw VerificationError(.malformedEvent, "complex subject has no \"user\"")
            }
            return try decode(user, depth: depth + 1)
        default:
            throw VerificationError(
                .malformedEvent, "subject format \(NotificationVerifier.printable(format)) is not supported")
        }
    }

    private static func googleSubject(type: String, _ members: JSONObject) throws(VerificationError)
        -> SubjectIdentifier
    {
        switch type {
        case "iss-sub", "id_token_claims":
            return account("iss_sub", [try member("iss", members), try member("sub", members)])
        case "oauth_token":
            return SubjectIdentifier(kind: .token)
        default:
            throw VerificationError(
                .malformedEvent, "subject_type \(NotificationVerifier.printable(type)) is not supported")
        }
    }

    private static func account(_ format: String, _ values: [String]) -> SubjectIdentifier {
        SubjectIdentifier(kind: .account(format: format, values: values))
    }

    private static func member(_ name: String, _ members: JSONObject) throws(VerificationError) -> String {
        guard case .string(let value)? = members[name], !value.isEmpty else {
            throw VerificationError(.malformedEvent, "subject identifier has no non-empty string \"\(name)\"")
        }
        guard value.utf8.count <= maximumValueBytes else {
            throw VerificationError(.malformedEvent, "subject identifier \"\(name)\" is longer than 1024 bytes")
        }
        return value
    }
}
