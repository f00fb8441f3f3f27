import FoundationEssentials

/// A response as the handler returns it: status, validated headers, body bytes.
///
/// Framing is the server's job: `Content-Length`, `Transfer-Encoding`, `Connection` and `Date` set here are
/// replaced by the server when it writes the response, so a handler cannot desynchronise the connection.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with no body (e.g. 204, or 200 for a HEAD-friendly endpoint).
    public static func empty(_ status: HTTPStatus) -> HTTPResponse {
        HTTPResponse(status: status)
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// An `application/json` response from bytes the caller already encoded.
    public static func json(bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }

    /// An `application/json` response encoding `value` with sorted keys, so bodies are stable for tests and
    /// caches.
    public static func json(_ value: some Encodable, status: HTTPStatus = .ok) throws -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return json(bytes: Array(try encoder.encode(value)), status: status)
    }

    /// 405 with the `Allow` field RFC 9110 §15.5.6 requires.
    public static func methodNotAllowed(allowed methods: [String]) -> HTTPResponse {
        var headers = HTTPHeaders()
        // Method names are program text; an invalid one is a programming error.
        try! headers.add(name: "Allow", value: methods.joined(separator: ", "))
        return HTTPResponse(status: .methodNotAllowed, headers: headers)
    }

    /// 404 with a short plain-text body.
    public static func notFound() -> HTTPResponse { text("not found\n", status: .notFound) }

    /// Returns nil when the method is allowed, else the 405 to send; a small routing helper for handlers.
    public static func rejectingMethod(_ method: String, allowed methods: [String]) -> HTTPResponse? {
        methods.contains(method) ? nil : methodNotAllowed(allowed: methods)
    }
}
