import FoundationEssentials

/// Where the key set comes from: Apple's HTTPS endpoint in production, a file for development and offline
/// inspection (`--jwks FILE`).
public enum JWKSSource: Hashable, Sendable, CustomStringConvertible {
    case file(path: String)
    case https(url: String)

    /// Apple's published keys (Sign in with Apple REST API, "Fetch Apple's public key for verifying token
    /// signature").
    public static let apple = JWKSSource.https(url: AppleIdentity.keysURL)

    /// Reads `https://…`, `file:///path`, `file:path` or a plain path. Plain `http://` is refused: a key set
    /// fetched without TLS lets anyone on the path forge notifications.
    public init?(_ text: String) {
        if text.hasPrefix("https://") {
            self = .https(url: text)
        } else if text.hasPrefix("file://") {
            let path = String(text.dropFirst("file://".count))
            guard path.hasPrefix("/") else { return nil }
            self = .file(path: path.removingPercentEncoding ?? path)
        } else if text.hasPrefix("file:") {
            self = .file(path: String(text.dropFirst("file:".count)))
        } else if text.contains("://") || text.isEmpty {
            return nil
        } else {
            self = .file(path: text)
        }
    }

    public var description: String {
        switch self {
        case .file(let path): "file:\(path)"
        case .https(let url): url
        }
    }
}
