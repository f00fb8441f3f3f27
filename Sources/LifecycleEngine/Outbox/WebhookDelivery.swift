import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleStore

/// Sends one outbox message to its app's webhook receiver and says what happened, without touching the
/// store: the dispatcher records the result.
package struct WebhookDelivery: Sendable {
    enum Result: Sendable, Equatable {
        case delivered(status: Int)
        /// `error` is why (`http_503`, `connect_failed`, `timed_out` …), for the store and metrics.
        case failed(error: FailureCode, status: Int?)
    }

    let endpoints: [String: (endpoint: WebhookEndpoint, signer: WebhookSigner)]
    let timeout: Duration
    let clock: any LifecycleClock
    /// Extra CA for `https://` receivers signed by a private CA; the system trust store otherwise.
    var trustedCAFile: String? = nil

    func deliver(_ message: OutboxMessage) async -> Result {
        guard let (endpoint, signer) = endpoints[message.app] else {
            return .failed(error: .noWebhookConfigured, status: nil)
        }
        let body = Array(message.payload.utf8)
        var headers: HTTPHeaders = ["Content-Type": "application/json", "User-Agent": "AccountLifecycle"]
        for (name, value) in signer.headers(
            id: message.messageID, timestamp: clock.now().secondsSinceEpoch, body: body)
        {
            try? headers.add(name: name, value: value)
        }
        let client = HTTPClient(
            host: endpoint.host, port: endpoint.port, timeout: timeout,
            tls: endpoint.isTLS ? TLSClientConfiguration(serverName: endpoint.host, trustedCAFile: trustedCAFile) : nil)
        do {
            let response = try await client.post(endpoint.target, headers: headers, body: body)
            if (200..<300).contains(response.status) { return .delivered(status: response.status) }
            return .failed(error: .httpStatus(response.status), status: response.status)
        } catch {
            return .failed(error: Self.code(for: error), status: nil)
        }
    }

    static func code(for error: HTTPClientError) -> FailureCode {
        switch error {
        case .timedOut: .timedOut
        case .connectFailed: .connectFailed
        case .connectionClosed: .connectionClosed
        case .malformedResponse: .malformedResponse
        case .responseTooLarge: .responseTooLarge
        case .invalidAddress: .invalidAddress
        case .tlsHandshakeFailed: .tlsHandshakeFailed
        default: .transportFailed
        }
    }
}
