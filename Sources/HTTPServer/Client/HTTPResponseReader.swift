import HTTP1

/// Reads HTTP/1.1 responses (RFC 9112 §4, §6.3) out of the bytes a server sent: the status line, the header
/// section, and the body by its framing (chunked, `Content-Length`, or delimited by the close). Everything here
/// comes from the server (Apple, a transmitter, a key server, a webhook receiver), so every malformed or
/// oversized answer is a thrown ``HTTPClientError``, never a trap, and what is held is bounded: read bytes are
/// let go as reading goes on, and interim responses are few.
///
/// It holds no socket: `fill` appends what the connection received and answers false at the end of the
/// stream, so the same reader runs over a socket, a TLS session, or a fuzzer's bytes.
package struct HTTPResponseReader {
    package let limits: HTTPClientLimits
    private var buffer: [UInt8] = []
    private var readIndex = 0

    package init(limits: HTTPClientLimits) {
        self.limits = limits
    }

    /// Forgets any buffered bytes (the connection closed).
    package mutating func reset() {
        buffer = []
        readIndex = 0
    }

    /// Bytes received and not yet read: after a response, bytes its framing did not account for.
    package var unread: Int { buffer.count - readIndex }

    /// Interim (1xx) responses taken before the final one; more is a malformed answer.
    package static let maximumInterimResponses = 8

    /// Read bytes are dropped from the buffer once this many have gathered at its front.
    static let compactionThreshold = 16 * 1024

    /// Reads one final response: interim 1xx responses before it are skipped (RFC 9110 §15.2). A body
    /// delimited by the close adds `Connection: close` to the headers.
    package mutating func readResponse(
        isHead: Bool, fill: (inout [UInt8]) throws(HTTPClientError) -> Bool
    ) throws(HTTPClientError) -> HTTPClientResponse {
        var interim = 0
        while true {
            var response = try readHead(fill)
            if (100..<200).contains(response.status) {
                interim += 1
                if interim > Self.maximumInterimResponses { throw .malformedResponse }
                continue
            }
            if isHead || response.status == 204 || response.status == 304 { return response }
            // RFC 9112 §6.3: Transfer-Encoding overrides Content-Length; chunked last means chunked, any other
            // coding last means the body runs to the close.
            let codings = response.headers.values(for: "Transfer-Encoding").flatMap { $0.split(separator: ",") }
            if let last = codings.last {
                if last.trimmingASCIIWhitespace().lowercased() == "chunked" {
                    response.body = try readChunkedBody(fill)
                } else {
                    try readToClose(&response, fill)
                }
            } else if let length = try Self.contentLength(response.headers) {
                guard length <= limits.maxBodyLength else { throw .responseTooLarge }
                response.body = Array(try readBytes(length, fill))
            } else {
                try readToClose(&response, fill)
            }
            return response
        }
    }

    /// A body delimited by the close (RFC 9112 §6.3 rule 8). Checked before the first read too: what came with
    /// the head counts.
    private mutating func readToClose(
        _ response: inout HTTPClientResponse, _ fill: (inout [UInt8]) throws(HTTPClientError) -> Bool
    ) throws(HTTPClientError) {
        repeat {
            if unread > limits.maxBodyLength { throw .responseTooLarge }
        } while try more(fill)
        response.body = Array(buffer[readIndex...])
        readIndex = buffer.count
        response.headers.remove("Connection")
        response.headers.add(HTTPField(validatedName: "Connection", value: "close"))
    }

    /// The `Content-Length`, nil without one. Repeated fields and lists must all name the same length
    /// (RFC 9110 §8.6); anything else is malformed.
    static func contentLength(_ headers: HTTPHeaders) throws(HTTPClientError) -> Int? {
        let values = headers.values(for: "Content-Length").flatMap {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        guard !values.isEmpty else { return nil }
        let lengths = values.map { decimal(Array($0.trimmingASCIIWhitespace().utf8)) }
        guard let first = lengths[0], lengths.allSatisfy({ $0 == first }) else { throw .malformedResponse }
        return first
    }

    /// Asks for more bytes, first dropping what was read: all of the buffer when nothing is left of it, its
    /// front once that has grown past ``compactionThreshold`` (a partial line or chunk is always waiting while
    /// a hostile server trickles a long answer). ``unread`` is the same before and after.
    private mutating func more(_ fill: (inout [UInt8]) throws(HTTPClientError) -> Bool) throws(HTTPClientError)
        -> Bool
    {
        if readIndex > 0, readIndex == buffer.count || readIndex >= Self.compactionThreshold {
            buffer.removeSubrange(..<readIndex)
            readIndex = 0
        }
        return try fill(&buffer)
    }

    private mutating func readLine(limit: Int, _ fill: (inout [UInt8]) throws(HTTPClientError) -> Bool)
        throws(HTTPClientError) -> ArraySlice<UInt8>
    {
        var searchFrom = readIndex
        while true {
            if let lf = buffer[searchFrom...].firstIndex(of: HTTPTokens.lineFeed) {
                // The same bound as for a line still arriving, so the answer does not depend on how the bytes
                // were split.
                if lf - readIndex > limit { throw .responseTooLarge }
                guard lf > readIndex, buffer[lf - 1] == HTTPTokens.carriageReturn else { throw .malformedResponse }
                let line = buffer[readIndex..<(lf - 1)]
                readIndex = lf + 1
                return line
            }
            if unread > limit { throw .responseTooLarge }
            // The unread bytes hold no line feed; only what arrives next is searched. (more() drops only bytes
            // already read, so the unread count is the same before and after.)
            let searched = unread
            guard try more(fill) else { throw .connectionClosed }
            searchFrom = readIndex + searched
        }
    }

    private mutating func readBytes(_ count: Int, _ fill: (inout [UInt8]) throws(HTTPClientError) -> Bool)
        throws(HTTPClientError) -> ArraySlice<UInt8>
    {
        precondition(count >= 0, "a byte count read from a response is checked before it is used")
        while unread < count {
            guard try more(fill) else { throw .connectionClosed }
        }
        let bytes = buffer[readIndex..<(readIndex + count)]
        readIndex += count
        return bytes
    }

    private mutating func readHead(_ fill: (inout [UInt8]) throws(HTTPClientError) -> Bool) throws(HTTPClientError)
        -> HTTPClientResponse
    {
        let statusLine = Array(try readLine(limit: limits.maxHeaderSectionLength, fill))
        // HTTP-version SP 3DIGIT SP [ reason-phrase ]
        guard statusLine.count >= 12, statusLine[0..<7].elementsEqual("HTTP/1.".utf8),
            statusLine[7] == UInt8(ascii: "0") || statusLine[7] == UInt8(ascii: "1"), statusLine[8] == 0x20,
            let status = Self.decimal(Array(statusLine[9..<12])), (100...999).contains(status),
            statusLine.count == 12 || statusLine[12] == 0x20
        else { throw .malformedResponse }
        let version: HTTPVersion = statusLine[7] == UInt8(ascii: "0") ? .http1_0 : .http1_1
        let reason = statusLine.count > 13 ? String(decoding: statusLine[13...], as: UTF8.self) : ""
        var headers = HTTPHeaders()
        var sectionBytes = 0
        while true {
            let line = try readLine(limit: limits.maxHeaderSectionLength, fill)
            sectionBytes += line.count + 2
            if sectionBytes > limits.maxHeaderSectionLength { throw .responseTooLarge }
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: HTTPTokens.colon), HTTPTokens.isToken(line[line.startIndex..<colon])
            else { throw .malformedResponse }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
            headers.add(
                HTTPField(
                    validatedName: String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                    value: String(Substring(value).trimmingASCIIWhitespace())))
        }
        return HTTPClientResponse(status: status, reasonPhrase: reason, version: version, headers: headers, body: [])
    }

    private mutating func readChunkedBody(_ fill: (inout [UInt8]) throws(HTTPClientError) -> Bool)
        throws(HTTPClientError) -> [UInt8]
    {
        var body: [UInt8] = []
        while true {
            let line = try readLine(limit: limits.maxHeaderSectionLength, fill)
            // chunk-size is 1*HEXDIG (RFC 9112 §7.1), then optional whitespace and extensions after `;`.
            let digits = line.prefix(while: HTTPTokens.isHexDigit)
            let rest = line[digits.endIndex...]
            guard !digits.isEmpty, digits.count <= limits.maxChunkSizeDigits,
                rest.isEmpty || rest.first == UInt8(ascii: ";") || rest.first == UInt8(ascii: " ")
                    || rest.first == UInt8(ascii: "\t"),
                let size = HTTPTokens.number(digits, radix: 16)
            else { throw .malformedResponse }
            if size == 0 { break }
            guard size <= limits.maxBodyLength - body.count else { throw .responseTooLarge }
            body.append(contentsOf: try readBytes(size, fill))
            guard try readBytes(2, fill).elementsEqual([HTTPTokens.carriageReturn, HTTPTokens.lineFeed]) else {
                throw .malformedResponse
            }
        }
        // Trailer section up to the empty line.
        var trailerBytes = 0
        while true {
            let line = try readLine(limit: limits.maxHeaderSectionLength, fill)
            if line.isEmpty { break }
            trailerBytes += line.count + 2
            if trailerBytes > limits.maxHeaderSectionLength { throw .responseTooLarge }
        }
        return body
    }

    /// A non-negative decimal of at most 18 digits (no sign, no space), or nil.
    static func decimal(_ bytes: [UInt8]) -> Int? {
        bytes.count <= 18 ? HTTPTokens.number(bytes) : nil
    }
}
