/// A secret string from or for Apple's REST API (authorization code, refresh, access or identity token, client
/// secret) that must never reach a log line, an error message, a report or a response.
///
/// Every way Swift turns a value into text goes through a redacted form: `description` (string interpolation,
/// `print`), `debugDescription` (`String(reflecting:)`), and `customMirror` (`dump`, default descriptions of
/// enclosing structs). Only ``value`` reveals the secret, for the request body and the sealed store.
public protocol RedactedCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// What the value is, for the redacted text (`refresh token`).
    static var kindName: String { get }
    /// The secret itself.
    var value: String { get }
}

extension RedactedCredential {
    public var description: String { "<\(Self.kindName), redacted>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
