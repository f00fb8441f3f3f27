/// Where Apple's REST API lives: `https://appleid.apple.com` unless overridden (a stand-in on loopback in tests).
///
/// Only `https` is accepted: the client secret and the tokens are bearer credentials. The URL is an origin with
/// an optional path prefix; query, fragment and user info are refused, so a typo cannot silently change where
/// tokens go.
public struct AppleBaseURL: Hashable, Sendable, CustomStringConvertible {
    public static let apple = AppleBaseURL(host: "appleid.apple.com", port: 443, pathPrefix: "")

    /// A DNS name or an IP literal (without brackets).
    public let host: String
    public let port: Int
    /// Empty, or a path starting with `/` and not ending with one.
    public let pathPrefix: String

    private init(host: String, port: Int, pathPrefix: String) {
        self.host = host
        self.port = port
        self.pathPrefix = pathPrefix
    }

    /// Parses `https://host[:port][/prefix]`; the error is one line saying what is wrong, naming the URL as
    /// `what` in `field` (the REST base URL, or the key set URL `apple.jwks`).
    public static func parse(
        _ text: String, field: String = "baseURL", what: String = "base URL"
    ) -> Result<AppleBaseURL, AppleCredentialsError> {
        func failure(_ reason: String) -> Result<AppleBaseURL, AppleCredentialsError> {
            .failure(AppleCredentialsError(field: field, "\(what) \(AppleText.quoted(text)) \(reason)"))
        }
        let scheme = "https://"
        guard text.hasPrefix(scheme) else { return failure("must start with https://") }
        let rest = Substring(text.dropFirst(scheme.count))
        guard !rest.contains(where: { $0 == "?" || $0 == "#" || $0 == "@" || $0 == "\\" || $0 == " " }) else {
            return failure("must not have a query, fragment, user info, backslash or space")
        }
        // The path goes into the request line: a control byte (CR, LF) or a non-ASCII one would split or
        // change it (RFC 9112 §3.2: a request target is visible ASCII).
        guard rest.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return failure("must be printable ASCII, without spaces or control characters")
        }
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        guard !path.contains("//") else { return failure("has an empty path segment") }

        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return failure("has an unclosed [") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return failure("has text after ]") }
                portText = after.dropFirst()
            }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return failure("has more than one :") }
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
        }
        // No bracket inside a host: `[[x]` would read as the host `[x`, which prints back as another URL.
        guard !host.isEmpty,
            host.utf8.allSatisfy({
                $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "[") && $0 != UInt8(ascii: "]")
            })
        else { return failure("has no valid host") }
        var port = 443
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(portText), (1...65_535).contains(value)
            else { return failure("has a port outside 1-65535") }
            port = value
        }
        return .success(AppleBaseURL(host: String(host).lowercased(), port: port, pathPrefix: path))
    }

    /// The request target (origin-form, RFC 9112 §3.2.1) of an endpoint path such as `/auth/token`.
    public func target(_ path: String) -> String { pathPrefix + path }

    /// The `Host` field value: the port only when it is not 443 (RFC 9110 §7.2).
    public var hostField: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? name : "\(name):\(port)"
    }

    public var description: String { "https://\(hostField)\(pathPrefix)" }
}
