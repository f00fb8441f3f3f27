/// Serialises responses (RFC 9112 §4, §6). The server owns framing: it always writes `Content-Length` (also
/// for HEAD, where the body is omitted, RFC 9110 §9.3.2) and `Date`, and `Connection: close` when it will
/// close; handler-supplied framing fields are dropped so a handler cannot desynchronise the connection.
package enum HTTPResponseEncoder {
    private static let serverOwnedFields = ["Content-Length", "Transfer-Encoding", "Connection", "Date", "Keep-Alive"]

    package static func encode(
        _ response: HTTPResponse, date: [UInt8], omitBody: Bool, connection: ConnectionDirective,
        into output: inout [UInt8]
    ) {
        output.reserveCapacity(output.count + 128 + response.body.count)
        output.append(contentsOf: "HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\n".utf8)
        for field in response.headers
        where !serverOwnedFields.contains(where: { HTTPTokens.equalsIgnoringCase(field.name.utf8, $0) }) {
            output.append(contentsOf: field.name.utf8)
            output.append(contentsOf: ": ".utf8)
            output.append(contentsOf: field.value.utf8)
            output.append(contentsOf: "\r\n".utf8)
        }
        // 1xx and 204 responses carry no Content-Length (RFC 9110 §8.6).
        if response.status.code >= 200, response.status.code != 204 {
            output.append(contentsOf: "Content-Length: \(response.body.count)\r\n".utf8)
        }
        output.append(contentsOf: "Date: ".utf8)
        output.append(contentsOf: date)
        output.append(contentsOf: "\r\n".utf8)
        switch connection {
        case .close: output.append(contentsOf: "Connection: close\r\n".utf8)
        case .keepAlive: output.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        case .implicit: break
        }
        output.append(contentsOf: "\r\n".utf8)
        if !omitBody, response.status.code != 204, response.status.code != 304 {
            output.append(contentsOf: response.body)
        }
    }

    /// `100 Continue` interim response (RFC 9110 §15.2.1).
    package static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    package enum ConnectionDirective {
        case close
        /// HTTP/1.0 keep-alive must be confirmed explicitly.
        case keepAlive
        /// HTTP/1.1 persistent by default.
        case implicit
    }
}
