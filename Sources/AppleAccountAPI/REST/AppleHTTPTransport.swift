import Glibc
import HTTP1
import HTTPServer

/// One HTTPS exchange with Apple over the service's own HTTP client (TLS 1.2+, peer verified against the
/// system store or ``AppleRESTConfiguration/trustedCAFile``). A connection per call: the calls are rare (a
/// sign-in, a deletion, one probe per token per day), so pooling would buy nothing.
struct AppleHTTPTransport: Sendable {
    let configuration: AppleRESTConfiguration

    private var client: HTTPClient {
        var limits = HTTPClientLimits()
        limits.maxBodyLength = configuration.maximumResponseBytes
        return HTTPClient(
            host: configuration.baseURL.host, port: configuration.baseURL.port, timeout: configuration.timeout,
            limits: limits, tls: TLSClientConfiguration(trustedCAFile: configuration.trustedCAFile))
    }

    func post(_ endpoint: AppleEndpoint, form: [(name: String, value: String)]) async
        -> Result<HTTPClientResponse, AppleAPIError>
    {
        await send(
            method: "POST", path: endpoint.path, contentType: FormURLEncoding.contentType,
            body: FormURLEncoding.encode(form))
    }

    func get(_ endpoint: AppleEndpoint) async -> Result<HTTPClientResponse, AppleAPIError> {
        await get(path: endpoint.path)
    }

    /// A GET of `path` under the base URL (`""` for the base URL itself, e.g. a key set URL).
    func get(path: String) async -> Result<HTTPClientResponse, AppleAPIError> {
        await send(method: "GET", path: path, contentType: nil, body: [])
    }

    private func send(
        method: String, path: String, contentType: String?, body: [UInt8]
    ) async -> Result<HTTPClientResponse, AppleAPIError> {
        var headers = HTTPHeaders()
        do throws(HTTPField.ValidationError) {
            try headers.add(name: "Host", value: configuration.baseURL.hostField)
            try headers.add(name: "Accept", value: "application/json")
            try headers.add(name: "User-Agent", value: configuration.userAgent)
            if let contentType { try headers.add(name: "Content-Type", value: contentType) }
        } catch {
            return .failure(.transport("the request header fields are invalid (check the user agent)"))
        }
        let request = HTTPClientRequest(
            method: method,
            target: configuration.baseURL.target(path.isEmpty && configuration.baseURL.pathPrefix.isEmpty ? "/" : path),
            headers: headers, body: body)
        do throws(HTTPClientError) {
            return .success(try await client.send(request))
        } catch {
            return .failure(Self.classify(error, limit: configuration.maximumResponseBytes))
        }
    }

    /// Transport failures, described without any peer data.
    static func classify(_ error: HTTPClientError, limit: Int) -> AppleAPIError {
        switch error {
        case .timedOut: .timeout
        case .invalidAddress(let host): .transport("cannot resolve \(AppleText.quoted(host))")
        case .invalidRequest: .transport("the request could not be serialised")
        case .connectFailed(let code): .transport("connect failed: \(describe(errno: code))")
        case .sendFailed(let code): .transport("send failed: \(describe(errno: code))")
        case .receiveFailed(let code): .transport("receive failed: \(describe(errno: code))")
        case .connectionClosed: .transport("the connection closed before a complete answer")
        case .tlsHandshakeFailed(let reason): .transport("TLS handshake failed: \(reason)")
        case .malformedResponse: .malformedResponse("the answer is not valid HTTP/1.1")
        case .responseTooLarge: .malformedResponse("the answer is larger than \(limit) bytes")
        }
    }

    private static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return "\(String(cString: text)) (errno \(code))"
    }
}
