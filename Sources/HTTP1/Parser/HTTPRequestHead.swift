/// The request line and header section, emitted by the parser before the body is read so the server can
/// decide whether to send `100 Continue` (RFC 9110 §10.1.1).
public struct HTTPRequestHead: Sendable {
    public var method: String
    public var target: String
    public var path: String
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// How the body is delimited (RFC 9112 §6.3).
    public var framing: HTTPBodyFraming
    /// The client sent `Expect: 100-continue` on HTTP/1.1 and will wait for an interim response.
    public var expectsContinue: Bool
}

/// How a request body is delimited (RFC 9112 §6.3). Requests never use read-until-close.
public enum HTTPBodyFraming: Sendable, Hashable {
    case none
    case contentLength(Int)
    case chunked
}
