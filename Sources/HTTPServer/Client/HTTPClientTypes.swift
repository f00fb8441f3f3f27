import HTTP1

/// A request for `HTTPClient`: the target is origin-form (`/path?query`); `Host` and `Content-Length` are
/// added by the client.
public struct HTTPClientRequest: Sendable {
    public var method: String
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: String = "GET", target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }
}

/// A complete response with its de-framed body.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    public var reasonPhrase: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    /// Whether the server left the connection open for another request (RFC 9112 §9.3).
    public var isKeepAlive: Bool {
        let options = headers.values(for: "Connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingASCIIWhitespace().lowercased() }
        if options.contains("close") { return false }
        return version == .http1_1 || options.contains("keep-alive")
    }
}

/// Why an exchange failed. Carries no request or response content, so it is safe to log.
public enum HTTPClientError: Error, Sendable, Hashable {
    case invalidAddress(String)
    case invalidRequest
    case connectFailed(errno: Int32)
    case sendFailed(errno: Int32)
    case receiveFailed(errno: Int32)
    case timedOut
    /// The server closed the connection before a complete response.
    case connectionClosed
    case malformedResponse
    case responseTooLarge
    /// The TLS handshake failed; OpenSSL's reason (no peer data).
    case tlsHandshakeFailed(String)
}

/// Bounds on what the client buffers from a server.
public struct HTTPClientLimits: Sendable, Hashable {
    /// Largest response header section. Default 64 KiB.
    public var maxHeaderSectionLength: Int = 64 * 1024
    /// Largest response body. Default 16 MiB.
    public var maxBodyLength: Int = 16 * 1024 * 1024
    /// Most hex digits in a chunk-size. Default 8.
    public var maxChunkSizeDigits: Int = 8

    public init() {}
}
