/// Why a request could not be framed. Each case maps to the status RFC 9112 / RFC 9110 prescribe; after any of
/// them the server answers with `Connection: close` and closes, because the message boundary is no longer
/// trustworthy (RFC 9112 §11.2, request smuggling).
public enum HTTPParseError: Error, Sendable, Hashable {
    /// Not `method SP request-target SP HTTP-version` with exactly one SP each (RFC 9112 §3).
    case malformedRequestLine
    /// Request line longer than `HTTPServerLimits.maxRequestLineLength` (414, RFC 9112 §3).
    case requestLineTooLong
    /// A target that is not origin-form, absolute-form or `*`, or holds octets RFC 3986 does not allow.
    case invalidRequestTarget
    /// `HTTP/x.y` other than 1.0 and 1.1 (505, RFC 9110 §15.6.6).
    case unsupportedVersion
    /// A line ended in LF without CR, or a CR not followed by LF (RFC 9112 §2.2).
    case bareLineEnding
    /// A field line that starts with whitespace: obsolete line folding (RFC 9112 §5.2).
    case obsoleteLineFolding
    /// Whitespace between the field name and the colon (RFC 9112 §5.1: MUST respond 400).
    case whitespaceBeforeColon
    /// A field name that is not a token, or a line without a colon (RFC 9110 §5.1).
    case invalidFieldName
    /// NUL, CR, LF or another control octet in a field value (RFC 9110 §5.5).
    case invalidFieldValue
    /// One field line longer than `maxFieldLineLength` (431, RFC 6585 §5).
    case fieldLineTooLong
    /// Header or trailer section larger than `maxHeaderSectionLength` (431).
    case headerSectionTooLarge
    /// More field lines than `maxFieldCount` (431).
    case tooManyFields
    /// HTTP/1.1 request without Host (RFC 9112 §3.2: MUST respond 400).
    case missingHost
    /// More than one Host field line (RFC 9112 §3.2: MUST respond 400).
    case duplicateHost
    /// A Host value outside `uri-host [ ":" port ]`, or empty (RFC 9112 §3.2: MUST respond 400).
    case invalidHost
    /// Content-Length that is not `1*DIGIT` or overflows (RFC 9112 §6.3 rule 5).
    case invalidContentLength
    /// Content-Length sent more than once or as a list, even with equal values; this server does not merge.
    case duplicateContentLength
    /// Both Transfer-Encoding and Content-Length (RFC 9112 §6.3 rule 3: close after responding).
    case contentLengthWithTransferEncoding
    /// Transfer-Encoding on an HTTP/1.0 request (RFC 9112 §6.1: treat framing as faulty).
    case transferEncodingOnHTTP10
    /// A transfer coding list other than exactly `chunked` (501, RFC 9112 §6.1).
    case unsupportedTransferCoding
    /// A chunk-size line without hex digits, with junk after them, or not ending in CRLF (RFC 9112 §7.1).
    case invalidChunkSize
    /// More hex digits than `maxChunkSizeDigits`.
    case chunkSizeTooLong
    /// Chunk extensions longer than `maxChunkExtensionLength`.
    case chunkExtensionTooLong
    /// Chunk extensions outside the RFC 9112 §7.1.1 grammar (`2;`, `2;=x`, `2;a="open`, `2;a `).
    case invalidChunkExtension
    /// Chunk data not followed by CRLF.
    case invalidChunkTerminator
    /// Declared or received body larger than `maxBodyLength` (413).
    case bodyTooLarge
    /// An Expect value other than `100-continue` (417, RFC 9110 §10.1.1).
    case unsupportedExpectation

    /// The response status for this error.
    public var status: HTTPStatus {
        switch self {
        case .requestLineTooLong: .uriTooLong
        case .fieldLineTooLong, .headerSectionTooLarge, .tooManyFields: .requestHeaderFieldsTooLarge
        case .bodyTooLarge: .contentTooLarge
        case .unsupportedTransferCoding: .notImplemented
        case .unsupportedVersion: .httpVersionNotSupported
        case .unsupportedExpectation: .expectationFailed
        case .malformedRequestLine, .invalidRequestTarget, .bareLineEnding, .obsoleteLineFolding,
            .whitespaceBeforeColon, .invalidFieldName, .invalidFieldValue, .missingHost, .duplicateHost, .invalidHost,
            .invalidContentLength, .duplicateContentLength, .contentLengthWithTransferEncoding,
            .transferEncodingOnHTTP10, .invalidChunkSize, .chunkSizeTooLong, .chunkExtensionTooLong,
            .invalidChunkExtension, .invalidChunkTerminator:
            .badRequest
        }
    }
}
