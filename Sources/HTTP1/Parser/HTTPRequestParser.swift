/// An incremental, byte-level HTTP/1.1 request parser (RFC 9112).
///
/// Feed it bytes with `append(_:)` as they arrive and pull events with `next()`. For each request it emits
/// `.head` once the header section is complete (so the caller can answer `Expect: 100-continue`), then
/// `.request` once the body is complete. Pipelined requests stay buffered until the caller asks for them, so a
/// server can hold the next request back until the previous response is queued.
///
/// Once a framing error is reported the parser stays failed: the message boundary is lost and the connection
/// must be closed, never resynchronised (RFC 9112 §11.2).
public struct HTTPRequestParser: Sendable {
    public enum Event: Sendable {
        /// The buffered bytes do not complete the next step; append more.
        case needMoreData
        /// The request line and header section of the next request.
        case head(HTTPRequestHead)
        /// A complete request: head plus de-framed body.
        case request(HTTPRequest)
        /// The request is malformed; respond with `error.status` and `Connection: close`.
        case failure(HTTPParseError)
    }

    private enum State: Sendable {
        case requestLine
        case headerFields
        case headComplete
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case complete
        case failed(HTTPParseError)
    }

    private enum LineResult {
        case line(Range<Int>)
        case incomplete
        case failed(HTTPParseError)
    }

    public let limits: HTTPServerLimits

    private var buffer: [UInt8] = []
    /// Start of the bytes not yet consumed.
    private var readIndex = 0
    /// Where the search for the next LF resumes, so a slowly arriving line is scanned once.
    private var scanIndex = 0
    private var state: State = .requestLine

    // The request being assembled.
    private var head: HTTPRequestHead?
    private var method = ""
    private var target = ""
    private var version = HTTPVersion.http1_1
    private var headers = HTTPHeaders()
    private var sectionBytes = 0
    private var sectionFieldCount = 0
    private var body: [UInt8] = []

    public init(limits: HTTPServerLimits = HTTPServerLimits()) {
        self.limits = limits
    }

    /// Bytes received but not yet consumed by `next()`.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// True between requests with nothing buffered: the connection is idle rather than mid-request.
    public var isIdle: Bool {
        if case .requestLine = state, bufferedByteCount == 0 { return true }
        return false
    }

    /// True while the body of the current request is still arriving.
    public var isReadingBody: Bool {
        switch state {
        case .fixedBody, .chunkSize, .chunkData, .chunkDataEnd, .trailers: true
        case .requestLine, .headerFields, .headComplete, .complete, .failed: false
        }
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    private mutating func compact() {
        guard readIndex > 0, readIndex == buffer.count || readIndex >= buffer.count / 2 else { return }
        buffer.removeSubrange(0..<readIndex)
        scanIndex -= readIndex
        readIndex = 0
    }

    public mutating func next() -> Event {
        while true {
            switch state {
            case .failed(let error):
                return .failure(error)
            case .requestLine:
                switch takeLine(maxLength: limits.maxRequestLineLength, tooLong: .requestLineTooLong) {
                case .incomplete: return .needMoreData
                case .failed(let error): return fail(error)
                case .line(let range):
                    // RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request-line.
                    if range.isEmpty { continue }
                    if let error = parseRequestLine(range) { return fail(error) }
                    state = .headerFields
                }
            case .headerFields:
                switch takeSectionLine() {
                case .incomplete: return .needMoreData
                case .failed(let error): return fail(error)
                case .line(let range):
                    if range.isEmpty {
                        if let error = finishHead() { return fail(error) }
                        return .head(head!)
                    }
                    switch parseField(range) {
                    case .failure(let error): return fail(error)
                    case .success(let field): headers.add(field)
                    }
                }
            case .headComplete:
                switch head!.framing {
                case .none: state = .complete
                case .contentLength(let length): state = length == 0 ? .complete : .fixedBody(remaining: length)
                case .chunked: state = .chunkSize
                }
            case .fixedBody(let remaining):
                let taken = takeBody(upTo: remaining)
                if taken == remaining {
                    state = .complete
                } else {
                    state = .fixedBody(remaining: remaining - taken)
                    return .needMoreData
                }
            case .chunkSize:
                let maxLine = limits.maxChunkSizeDigits + 1 + limits.maxChunkExtensionLength
                switch takeLine(maxLength: maxLine, tooLong: .chunkExtensionTooLong) {
                case .incomplete: return .needMoreData
                case .failed(let error): return fail(error)
                case .line(let range):
                    switch parseChunkSize(range) {
                    case .failure(let error): return fail(error)
                    case .success(0):
                        sectionBytes = 0
                        sectionFieldCount = 0
                        state = .trailers
                    case .success(let size): state = .chunkData(remaining: size)
                    }
                }
            case .chunkData(let remaining):
                let taken = takeBody(upTo: remaining)
                if taken == remaining {
                    state = .chunkDataEnd
                } else {
                    state = .chunkData(remaining: remaining - taken)
                    return .needMoreData
                }
            case .chunkDataEnd:
                guard bufferedByteCount >= 2 else { return .needMoreData }
                guard buffer[readIndex] == HTTPTokens.carriageReturn, buffer[readIndex + 1] == HTTPTokens.lineFeed
                else { return fail(.invalidChunkTerminator) }
                readIndex += 2
                scanIndex = readIndex
                state = .chunkSize
            case .trailers:
                // RFC 9112 §7.1.2: trailer fields are parsed under the header limits and, here, discarded; the
                // service's handlers never depend on them.
                switch takeSectionLine() {
                case .incomplete: return .needMoreData
                case .failed(let error): return fail(error)
                case .line(let range):
                    if range.isEmpty {
                        state = .complete
                    } else if case .failure(let error) = parseField(range) {
                        return fail(error)
                    }
                }
            case .complete:
                let head = self.head!
                let request = HTTPRequest(
                    method: head.method, target: head.target, path: head.path, query: head.query,
                    version: head.version, headers: head.headers, body: body)
                resetRequest()
                return .request(request)
            }
        }
    }

    private mutating func fail(_ error: HTTPParseError) -> Event {
        state = .failed(error)
        return .failure(error)
    }

    private mutating func resetRequest() {
        head = nil
        headers = HTTPHeaders()
        body = []
        sectionBytes = 0
        sectionFieldCount = 0
        state = .requestLine
    }

    // MARK: Lines

    /// Finds the next CRLF-terminated line. A LF without CR, or a CR not followed by LF, is refused
    /// (RFC 9112 §2.2 allows either leniency but a strict server avoids parser differentials).
    ///
    /// Every verdict is reached at one byte position and depends only on the bytes up to the next one, so the
    /// same bytes give the same verdict however they are split across reads (a line that is both too long
    /// and badly terminated is always reported the same way). `sectionBudget`, for header and trailer field
    /// lines, is what is left of the section limit: a byte after which the line cannot end within it fails
    /// the section at that byte.
    private mutating func takeLine(
        maxLength: Int, tooLong: HTTPParseError, sectionBudget: Int? = nil
    ) -> LineResult {
        let start = readIndex
        var index = max(scanIndex, start)
        let end = buffer.count
        while index < end {
            let byte = buffer[index]
            let offset = index - start
            if byte == HTTPTokens.lineFeed {
                guard index > start, buffer[index - 1] == HTTPTokens.carriageReturn else {
                    return .failed(.bareLineEnding)
                }
                let lineEnd = index - 1
                guard lineEnd - start <= maxLength else { return .failed(tooLong) }
                if let sectionBudget, offset + 1 > sectionBudget { return .failed(.headerSectionTooLarge) }
                readIndex = index + 1
                scanIndex = readIndex
                return .line(start..<lineEnd)
            }
            // Content of `offset + 1` bytes (or `offset` and a CR) can no longer end within the limits.
            if offset > maxLength + 1 || (offset == maxLength + 1 && byte != HTTPTokens.carriageReturn) {
                return .failed(tooLong)
            }
            if let sectionBudget, offset + 2 > sectionBudget { return .failed(.headerSectionTooLarge) }
            if byte == HTTPTokens.carriageReturn {
                // Decided once the next byte is here; rescan this CR next time.
                guard index + 1 < end else { break }
                if buffer[index + 1] != HTTPTokens.lineFeed { return .failed(.bareLineEnding) }
            }
            index += 1
        }
        scanIndex = max(start, index)
        return .incomplete
    }

    /// A header or trailer field line, under both the per-line and the per-section limits.
    private mutating func takeSectionLine() -> LineResult {
        let result = takeLine(
            maxLength: limits.maxFieldLineLength, tooLong: .fieldLineTooLong,
            sectionBudget: limits.maxHeaderSectionLength - sectionBytes)
        if case .line(let range) = result {
            sectionBytes += range.count + 2
            if !range.isEmpty {
                sectionFieldCount += 1
                if sectionFieldCount > limits.maxFieldCount { return .failed(.tooManyFields) }
            }
        }
        return result
    }

    // MARK: Request line (RFC 9112 §3)

    private mutating func parseRequestLine(_ range: Range<Int>) -> HTTPParseError? {
        guard let firstSpace = buffer[range].firstIndex(of: HTTPTokens.space) else { return .malformedRequestLine }
        let methodBytes = buffer[range.lowerBound..<firstSpace]
        guard HTTPTokens.isToken(methodBytes) else { return .malformedRequestLine }
        let targetStart = firstSpace + 1
        guard let secondSpace = buffer[targetStart..<range.upperBound].firstIndex(of: HTTPTokens.space) else {
            return .malformedRequestLine
        }
        let targetBytes = buffer[targetStart..<secondSpace]
        // An empty target here means two adjacent spaces: exactly one SP is allowed.
        guard !targetBytes.isEmpty else { return .malformedRequestLine }
        let versionBytes = buffer[(secondSpace + 1)..<range.upperBound]
        if versionBytes.elementsEqual("HTTP/1.1".utf8) {
            version = .http1_1
        } else if versionBytes.elementsEqual("HTTP/1.0".utf8) {
            version = .http1_0
        } else if Self.isWellFormedVersion(versionBytes) {
            return .unsupportedVersion
        } else {
            return .malformedRequestLine
        }
        // RFC 3986: a target is visible ASCII; non-ASCII (including non-UTF-8) octets must be percent-encoded,
        // and a fragment is never sent.
        guard targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else {
            return .invalidRequestTarget
        }
        method = String(decoding: methodBytes, as: UTF8.self)
        target = String(decoding: targetBytes, as: UTF8.self)
        return nil
    }

    /// HTTP-version = "HTTP" "/" DIGIT "." DIGIT (RFC 9112 §2.3).
    private static func isWellFormedVersion(_ bytes: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(bytes)
        guard bytes.count == 8, bytes[0..<5].elementsEqual("HTTP/".utf8), bytes[6] == UInt8(ascii: ".") else {
            return false
        }
        return isDigit(bytes[5]) && isDigit(bytes[7])
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Splits the target into path and query; absolute-form (RFC 9112 §3.2.2) is reduced to its path and `*`
    /// (asterisk-form, §3.2.4) is kept for OPTIONS. Authority-form (CONNECT) is not served.
    private static func splitTarget(_ target: String, method: String) -> (path: Substring, query: Substring?)? {
        var pathAndQuery = Substring(target)
        if target == "*" {
            return method == "OPTIONS" ? (pathAndQuery, nil) : nil
        }
        if !target.hasPrefix("/") {
            let lowered = target.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
            let schemeLength = lowered.hasPrefix("http://") ? 7 : 8
            let afterScheme = Substring(target).dropFirst(schemeLength)
            guard let slash = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) else {
                return ("/", nil)
            }
            pathAndQuery = afterScheme[slash...]
            if pathAndQuery.hasPrefix("?") {
                return ("/", pathAndQuery.dropFirst())
            }
        }
        guard let questionMark = pathAndQuery.firstIndex(of: "?") else { return (pathAndQuery, nil) }
        return (pathAndQuery[..<questionMark], pathAndQuery[pathAndQuery.index(after: questionMark)...])
    }

    // MARK: Fields (RFC 9112 §5, RFC 9110 §5)

    private func parseField(_ range: Range<Int>) -> Result<HTTPField, HTTPParseError> {
        let first = buffer[range.lowerBound]
        if first == HTTPTokens.space || first == HTTPTokens.horizontalTab { return .failure(.obsoleteLineFolding) }
        guard let colon = buffer[range].firstIndex(of: HTTPTokens.colon) else { return .failure(.invalidFieldName) }
        let nameBytes = buffer[range.lowerBound..<colon]
        if let last = nameBytes.last, last == HTTPTokens.space || last == HTTPTokens.horizontalTab {
            return .failure(.whitespaceBeforeColon)
        }
        guard HTTPTokens.isToken(nameBytes) else { return .failure(.invalidFieldName) }
        var valueStart = colon + 1
        var valueEnd = range.upperBound
        while valueStart < valueEnd,
            buffer[valueStart] == HTTPTokens.space || buffer[valueStart] == HTTPTokens.horizontalTab
        {
            valueStart += 1
        }
        while valueEnd > valueStart,
            buffer[valueEnd - 1] == HTTPTokens.space || buffer[valueEnd - 1] == HTTPTokens.horizontalTab
        {
            valueEnd -= 1
        }
        let valueBytes = buffer[valueStart..<valueEnd]
        guard HTTPTokens.isFieldValue(valueBytes) else { return .failure(.invalidFieldValue) }
        // obs-text (0x80–0xFF) is legal in a value; bytes that are not UTF-8 become U+FFFD here, which is
        // harmless because every value the server interprets is ASCII.
        return .success(
            HTTPField(
                validatedName: String(decoding: nameBytes, as: UTF8.self),
                value: String(decoding: valueBytes, as: UTF8.self)))
    }

    // MARK: Framing (RFC 9112 §6.3)

    private mutating func finishHead() -> HTTPParseError? {
        let hosts = headers.values(for: "Host")
        if hosts.count > 1 { return .duplicateHost }
        if hosts.isEmpty, version == .http1_1 { return .missingHost }
        if let host = hosts.first, !HostFieldGrammar.isValid(host.utf8) { return .invalidHost }
        guard let (path, query) = Self.splitTarget(target, method: method) else { return .invalidRequestTarget }

        let transferEncodings = headers.values(for: "Transfer-Encoding")
        let contentLengths = headers.values(for: "Content-Length")
        var framing = HTTPBodyFraming.none
        if !transferEncodings.isEmpty {
            if !contentLengths.isEmpty { return .contentLengthWithTransferEncoding }
            if version == .http1_0 { return .transferEncodingOnHTTP10 }
            let codings = transferEncodings.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingASCIIWhitespace() }
            guard codings.count == 1, codings[0].lowercased() == "chunked" else { return .unsupportedTransferCoding }
            framing = .chunked
        } else if !contentLengths.isEmpty {
            guard contentLengths.count == 1 else { return .duplicateContentLength }
            let digits = Array(contentLengths[0].utf8)
            if digits.contains(UInt8(ascii: ",")) { return .duplicateContentLength }
            guard let length = HTTPTokens.number(digits) else { return .invalidContentLength }
            // Checked before any body byte is buffered.
            guard length <= limits.maxBodyLength else { return .bodyTooLarge }
            framing = .contentLength(length)
        }

        var expectsContinue = false
        let expectations = headers.values(for: "Expect")
        if !expectations.isEmpty {
            guard expectations.count == 1, expectations[0].lowercased() == "100-continue" else {
                return .unsupportedExpectation
            }
            // RFC 9110 §10.1.1: never send 100 (Continue) to an HTTP/1.0 client.
            expectsContinue = version == .http1_1
        }

        // Storage for what has arrived, never for what was declared: a declared length costs nothing until its
        // bytes come, so connections that announce a large body and send none of it stay small.
        if case .contentLength(let length) = framing { body.reserveCapacity(min(length, bufferedByteCount)) }
        head = HTTPRequestHead(
            method: method, target: target, path: String(path), query: query.map(String.init), version: version,
            headers: headers, framing: framing, expectsContinue: expectsContinue)
        state = .headComplete
        return nil
    }

    /// Content-Length = 1*DIGIT, with overflow reported rather than trapped.
    // MARK: Chunked coding (RFC 9112 §7.1)

    /// chunk-size [ chunk-ext ]: hex digits (capped), then extensions (capped, checked against their grammar,
    /// ignored).
    private func parseChunkSize(_ range: Range<Int>) -> Result<Int, HTTPParseError> {
        var index = range.lowerBound
        var size = 0
        var digitCount = 0
        while index < range.upperBound, let digit = HTTPTokens.hexValue(buffer[index]) {
            digitCount += 1
            if digitCount > limits.maxChunkSizeDigits { return .failure(.chunkSizeTooLong) }
            let (shifted, overflow1) = size.multipliedReportingOverflow(by: 16)
            let (sum, overflow2) = shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return .failure(.chunkSizeTooLong) }
            size = sum
            index += 1
        }
        guard digitCount > 0 else { return .failure(.invalidChunkSize) }
        let extensionBytes = buffer[index..<range.upperBound]
        if extensionBytes.count > limits.maxChunkExtensionLength { return .failure(.chunkExtensionTooLong) }
        guard ChunkExtensionGrammar.isValid(extensionBytes) else { return .failure(.invalidChunkExtension) }
        let (total, overflow) = body.count.addingReportingOverflow(size)
        if overflow || total > limits.maxBodyLength { return .failure(.bodyTooLarge) }
        return .success(size)
    }

    /// Moves up to `count` buffered bytes into the body; returns how many moved.
    private mutating func takeBody(upTo count: Int) -> Int {
        let taken = min(count, bufferedByteCount)
        body.append(contentsOf: buffer[readIndex..<(readIndex + taken)])
        readIndex += taken
        scanIndex = readIndex
        return taken
    }
}
