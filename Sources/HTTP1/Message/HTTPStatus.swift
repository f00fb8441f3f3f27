/// A response status code with its reason phrase (RFC 9110 §15). The code is a three-digit number; the phrase
/// is informational only but still goes on the wire, so it is restricted to safe characters.
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    public let code: Int
    public let reasonPhrase: String

    public enum ValidationError: Error, Sendable, Hashable {
        case codeOutOfRange(Int)
        case invalidReasonPhrase
    }

    public init(code: Int, reasonPhrase: String) throws(ValidationError) {
        guard (100...999).contains(code) else { throw .codeOutOfRange(code) }
        // reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ) (RFC 9112 §4)
        guard HTTPTokens.isFieldValue(reasonPhrase.utf8) else { throw .invalidReasonPhrase }
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    /// A registered code with its standard phrase; unknown codes get an empty phrase, which RFC 9112 §4 allows.
    public init(code: Int) throws(ValidationError) {
        try self.init(code: code, reasonPhrase: Self.standardReasonPhrases[code] ?? "")
    }

    private init(known code: Int) {
        self.code = code
        self.reasonPhrase = Self.standardReasonPhrases[code] ?? ""
    }

    public var description: String { "\(code) \(reasonPhrase)" }

    public static let `continue` = HTTPStatus(known: 100)
    public static let ok = HTTPStatus(known: 200)
    public static let created = HTTPStatus(known: 201)
    public static let accepted = HTTPStatus(known: 202)
    public static let noContent = HTTPStatus(known: 204)
    public static let badRequest = HTTPStatus(known: 400)
    public static let unauthorized = HTTPStatus(known: 401)
    public static let forbidden = HTTPStatus(known: 403)
    public static let notFound = HTTPStatus(known: 404)
    public static let methodNotAllowed = HTTPStatus(known: 405)
    public static let requestTimeout = HTTPStatus(known: 408)
    public static let conflict = HTTPStatus(known: 409)
    public static let contentTooLarge = HTTPStatus(known: 413)
    public static let uriTooLong = HTTPStatus(known: 414)
    public static let unsupportedMediaType = HTTPStatus(known: 415)
    public static let expectationFailed = HTTPStatus(known: 417)
    public static let unprocessableContent = HTTPStatus(known: 422)
    public static let tooManyRequests = HTTPStatus(known: 429)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(known: 431)
    public static let internalServerError = HTTPStatus(known: 500)
    public static let notImplemented = HTTPStatus(known: 501)
    public static let serviceUnavailable = HTTPStatus(known: 503)
    public static let httpVersionNotSupported = HTTPStatus(known: 505)

    /// Reason phrases from the IANA HTTP Status Code Registry (RFC 9110 §15, RFC 6585).
    static let standardReasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content", 426: "Upgrade Required",
        428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]
}
