/// A complete, validated request as handed to the application handler.
public struct HTTPRequest: Sendable {
    /// The method token exactly as sent (methods are case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The request target as sent (origin-form `/path?query`, or absolute-form).
    public var target: String
    /// The path component of the target (absolute-form is reduced to its path), still percent-encoded.
    public var path: String
    /// The query component without the `?`, or nil when the target had none.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// The body after removing chunked framing; empty when the request had none.
    public var body: [UInt8]

    public init(
        method: String, target: String, path: String, query: String?, version: HTTPVersion, headers: HTTPHeaders,
        body: [UInt8]
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Whether a response to this request would keep the connection open (RFC 9112 §9.3): HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public var wantsKeepAlive: Bool {
        let options = headers.values(for: "Connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingASCIIWhitespace().lowercased() }
        if options.contains("close") { return false }
        switch version {
        case .http1_1: return true
        case .http1_0: return options.contains("keep-alive")
        }
    }
}

extension Substring {
    package func trimmingASCIIWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
