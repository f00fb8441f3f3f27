import Foundation
import HTTP1
import HTTPServer
import LifecycleCore

/// Sends `account.erasure.requested` to an app's webhook, signed like the outbox's deliveries
/// (``WebhookSigner``, Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`), over plain
/// HTTP or HTTPS (TLS 1.2+, peer verified against the system trust store and the URL's host name).
struct ErasureWebhookClient: Sendable {
    var url: String
    var signer: WebhookSigner
    var timeout: Duration

    /// What one delivery observed, classified for ``ErasureStep/record(stepResult:at:retry:random:)``:
    /// 202 accepted (wait for the callback), other 2xx erased, 408/429/5xx and transport failures retryable,
    /// other statuses final.
    func deliver(messageID: String, body: [UInt8], at now: Instant) async -> ErasureStepResult {
        guard let endpoint = WebhookEndpoint(url: url) else {
            return .failed(ErasureStepEvidence(errorCode: .webhookURLInvalid), retryable: false)
        }
        var headers: HTTPHeaders = ["Content-Type": "application/json", "User-Agent": "AccountLifecycle"]
        for (name, value) in signer.headers(id: messageID, timestamp: now.secondsSinceEpoch, body: body) {
            do {
                try headers.add(name: name, value: value)
            } catch {
                return .failed(ErasureStepEvidence(errorCode: .webhookHeaderInvalid), retryable: false)
            }
        }
        let client = HTTPClient(
            host: endpoint.host, port: endpoint.port, timeout: timeout,
            tls: endpoint.isTLS ? TLSClientConfiguration() : nil)
        let response: HTTPClientResponse
        do {
            response = try await client.post(endpoint.target, headers: headers, body: body)
        } catch {
            return .failed(ErasureStepEvidence(errorCode: WebhookDelivery.code(for: error)), retryable: true)
        }
        let status = response.status
        switch status {
        case 202: return .accepted(ErasureStepEvidence(responseStatus: status))
        case 200..<300: return .erased(ErasureStepEvidence(responseStatus: status))
        case 408, 429, 500..<600:
            return .failed(ErasureStepEvidence(responseStatus: status, errorCode: .httpStatus(status)), retryable: true)
        default:
            return .failed(
                ErasureStepEvidence(responseStatus: status, errorCode: .httpStatus(status)), retryable: false)
        }
    }
}
