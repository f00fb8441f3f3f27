import Foundation

/// A parsed webhook URL. Plain `http://` is delivered by the built-in client; `https://` needs the TLS client.
struct WebhookEndpoint: Sendable, Equatable {
    var isTLS: Bool
    var host: String
    var port: Int
    /// Path and query as sent in the request line.
    var target: String

    init?(url text: String) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        isTLS = scheme == "https"
        self.host = host == "localhost" ? "127.0.0.1" : host
        port = url.port ?? (isTLS ? 443 : 80)
        let path = url.path.isEmpty ? "/" : url.path
        target = url.query.map { path + "?" + $0 } ?? path
    }
}
