import Foundation

/// The notification endpoint URL, checked against Apple's rule for the Sign in with Apple server-to-server
/// notification endpoint: an absolute URL with the `https` scheme, a host and a path
/// (`https://example.com/path/to/endpoint`, DOMAIN.md §5).
public struct EndpointURL: Sendable, Hashable {
    public var host: String
    public var port: Int
    /// Path plus query, as sent in the request line.
    public var target: String

    /// The default HTTPS port (RFC 9110 §4.2.2).
    static let defaultHTTPSPort = 443

    /// The parsed URL, or the reason it breaks Apple's rule and how to fix it.
    public static func parse(_ text: String) -> Result<EndpointURL, EndpointURLError> {
        func refuse(_ detail: String, _ fix: String) -> Result<EndpointURL, EndpointURLError> {
            .failure(EndpointURLError(detail: detail, fix: fix))
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme else {
            return refuse(
                "'\(text)' is not an absolute URL", "give the full URL, e.g. https://example.com/apple/notifications")
        }
        guard scheme.lowercased() == "https" else {
            return refuse(
                "scheme is '\(scheme)'; Apple only delivers to https URLs",
                "serve the endpoint over HTTPS (TLS 1.2 or later) and register the https:// URL")
        }
        guard let host = components.host, !host.isEmpty else {
            return refuse("the URL has no host", "include the server's host name: https://HOST/path")
        }
        guard components.user == nil, components.password == nil else {
            return refuse("the URL contains credentials", "remove user:password@ from the URL")
        }
        guard components.fragment == nil else {
            return refuse("the URL contains a #fragment", "remove the #fragment; it is never sent to the server")
        }
        let path = components.percentEncodedPath
        guard !path.isEmpty, path != "/" else {
            return refuse(
                "the URL has no path", "Apple requires a path: https://\(host)/apple/notifications, for example")
        }
        if let port = components.port, !(1...65535).contains(port) {
            return refuse("port \(port) is out of range", "use a port in 1...65535 (normally 443)")
        }
        let query = components.percentEncodedQuery.map { "?\($0)" } ?? ""
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return .success(EndpointURL(host: bareHost, port: components.port ?? defaultHTTPSPort, target: path + query))
    }
}

/// Why a URL breaks Apple's endpoint rule, and the fix.
public struct EndpointURLError: Error, Sendable, Hashable {
    public var detail: String
    public var fix: String
}
