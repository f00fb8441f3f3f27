import AppleAccountAPI
import HTTP1
import HTTPServer
import LifecycleCore

/// JSON over HTTPS to a transmitter (its discovery document, stream configuration and verification
/// endpoints, Google's RISC API), over the service's own HTTP client and TLS (peer verified against
/// OpenSSL's default trust store, which `SSL_CERT_FILE` can point at a private CA). A connection per call:
/// an operator runs these commands by hand.
package struct TransmitterClient: Sendable {
    var timeout: Duration
    /// Largest answer read. Stream configurations are small; a larger answer is refused.
    var maximumResponseBytes = 1 << 20

    /// One exchange: `method` on `url` (an `https://` URL) with `query` appended, the JSON `body` when given,
    /// and `authorization` as the `Authorization` field. Returns the status and the JSON answer (nil for an
    /// empty or non-JSON body).
    func send(
        _ method: String, _ url: String, query: [(String, String)] = [], body: JSONValue? = nil,
        authorization: String?
    ) async throws(StreamManagementError) -> (status: Int, json: JSONValue?) {
        let answer = try await exchange(method, url, query: query, body: body, authorization: authorization)
        return (answer.status, JSONValue.parseIfValid(answer.body))
    }

    /// ``send(_:_:query:body:authorization:)`` answering the body's bytes as read (at most
    /// ``maximumResponseBytes``), for a caller that parses them itself.
    func exchange(
        _ method: String, _ url: String, query: [(String, String)] = [], body: JSONValue? = nil,
        authorization: String?
    ) async throws(StreamManagementError) -> (status: Int, body: [UInt8]) {
        let base: AppleBaseURL
        switch AppleBaseURL.parse(url, field: "url", what: "URL") {
        case .success(let parsed): base = parsed
        case .failure(let error): throw StreamManagementError(error.description)
        }
        var headers = HTTPHeaders()
        do throws(HTTPField.ValidationError) {
            try headers.add(name: "Host", value: base.hostField)
            try headers.add(name: "Accept", value: "application/json")
            try headers.add(name: "User-Agent", value: "lifecycle/signals")
            if body != nil { try headers.add(name: "Content-Type", value: "application/json") }
            if let authorization { try headers.add(name: "Authorization", value: authorization) }
        } catch {
            throw StreamManagementError("the credential for \(base) is not a valid header value; check the file")
        }
        var target = base.pathPrefix.isEmpty ? "/" : base.pathPrefix
        if !query.isEmpty {
            target +=
                "?"
                + query.map { Self.percentEncoded($0.0) + "=" + Self.percentEncoded($0.1) }
                .joined(separator: "&")
        }
        var limits = HTTPClientLimits()
        limits.maxBodyLength = maximumResponseBytes
        let client = HTTPClient(
            host: base.host, port: base.port, timeout: timeout, limits: limits, tls: TLSClientConfiguration())
        let response: HTTPClientResponse
        do throws(HTTPClientError) {
            response = try await client.send(
                HTTPClientRequest(method: method, target: target, headers: headers, body: body?.encoded() ?? []))
        } catch {
            throw StreamManagementError(
                "\(method) \(base.description.quotedForError(maxBytes: Self.maximumQuotedURLBytes)): \(Self.describe(error))"
            )
        }
        return (response.status, response.body)
    }

    /// How much of a URL an error quotes: the transmitter's documents name some of them.
    package static let maximumQuotedURLBytes = 300

    /// Fails with one line unless `status` is one of `expected`, naming the call and the transmitter's error
    /// code when it gave one (RFC 8935 §2.4 `err`, OAuth `error`, Google's `error.status`).
    package static func expect(
        _ answer: (status: Int, json: JSONValue?), _ expected: Set<Int>, call: String
    ) throws(StreamManagementError) {
        guard !expected.contains(answer.status) else { return }
        let code =
            answer.json?["err"]?.stringValue ?? answer.json?["error"]?.stringValue
            ?? answer.json?["error"]?["status"]?.stringValue
        let quoted = code.map { " (\($0.quotedForError(maxBytes: 64)))" } ?? ""
        // The URL in `call` can be the transmitter's own (a discovered endpoint).
        let call = call.quotedForError(maxBytes: Self.maximumQuotedURLBytes)
        let hint: String =
            switch answer.status {
            case 401, 403: "; check the management credential (stream.tokenFile or stream.serviceAccountFile)"
            case 404: "; check stream.streamId or the transmitter's endpoints"
            default: ""
            }
        throw StreamManagementError("\(call) answered \(answer.status)\(quoted)\(hint)")
    }

    /// RFC 3986 §2.1 for a query component: unreserved characters kept, every other byte as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E:
                result.unicodeScalars.append(.init(byte))
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
            }
        }
        return result
    }

    static func describe(_ error: HTTPClientError) -> String {
        switch error {
        case .timedOut: "timed out"
        case .invalidAddress(let host): "cannot resolve \(host.quotedForError(maxBytes: 255))"
        case .invalidRequest: "the request could not be serialised"
        case .connectFailed(let code): "connect failed (errno \(code))"
        case .sendFailed(let code): "send failed (errno \(code))"
        case .receiveFailed(let code): "receive failed (errno \(code))"
        case .connectionClosed: "the connection closed before a complete answer"
        case .tlsHandshakeFailed(let reason): "TLS handshake failed: \(reason); set SSL_CERT_FILE for a private CA"
        case .malformedResponse: "the answer is not valid HTTP/1.1"
        case .responseTooLarge: "the answer is too large"
        }
    }
}
