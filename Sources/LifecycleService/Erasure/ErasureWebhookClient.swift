import Foundation
import HTTP
import LifecycleCore
import LifecycleCrypto

/// Sends `account.erasure.requested` to an app's webhook, signed per Standard Webhooks
/// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
/// `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256>` over
/// `"{id}.{timestamp}.{body}"`, with the secret decoded from `whsec_<base64>` or used as raw bytes.
///
/// Only `http://` URLs are delivered: the HTTP module has no TLS client yet, so `https://` fails with the
/// code ``tlsUnsupportedCode`` rather than silently sending personal data in clear text to a different port.
struct ErasureWebhookClient: Sendable {
    static let tlsUnsupportedCode = "tls_unsupported"

    var url: String
    var secret: [UInt8]
    var timeout: Duration

    /// What one delivery observed, classified for ``ErasureStep/record(stepResult:at:retry:random:)``.
    func deliver(messageID: String, body: [UInt8], at now: Instant) async -> ErasureStepResult {
        guard url.hasPrefix("http://") else {
            return .failed(ErasureStepEvidence(errorCode: Self.tlsUnsupportedCode), retryable: false)
        }
        guard let (host, port, target) = Self.split(url) else {
            return .failed(ErasureStepEvidence(errorCode: "webhook-url-invalid"), retryable: false)
        }
        let timestamp = String(now.secondsSinceEpoch)
        let signed = Array("\(messageID).\(timestamp).".utf8) + body
        let signature = Data(HMACSHA256.authenticate(signed, key: secret)).base64EncodedString()
        var headers = HTTPHeaders()
        do {
            for (name, value) in [
                ("Content-Type", "application/json"), ("webhook-id", messageID), ("webhook-timestamp", timestamp),
                ("webhook-signature", "v1,\(signature)"),
            ] {
                headers.add(try HTTPField(name: name, value: value))
            }
        } catch {
            return .failed(ErasureStepEvidence(errorCode: "webhook-header-invalid"), retryable: false)
        }
        let client = HTTPClient(host: host, port: port, timeout: timeout)
        let response: HTTPClientResponse
        do {
            response = try await client.post(target, headers: headers, body: body)
        } catch {
            let code =
                switch error {
                case .timedOut: "timeout"
                case .connectFailed: "connect-failed"
                default: "http-exchange-failed"
                }
            return .failed(ErasureStepEvidence(errorCode: code), retryable: true)
        }
        let status = response.status
        let evidence = ErasureStepEvidence(responseStatus: status)
        switch status {
        case 202: return .accepted(evidence)
        case 200..<300: return .erased(evidence)
        case 408, 429, 500..<600:
            return .failed(ErasureStepEvidence(responseStatus: status, errorCode: "http-\(status)"), retryable: true)
        default:
            return .failed(ErasureStepEvidence(responseStatus: status, errorCode: "http-\(status)"), retryable: false)
        }
    }

    /// `http://host[:port]/path?query` → host, port (default 80), request target (default `/`).
    static func split(_ url: String) -> (String, Int, String)? {
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        var target = String(rest.dropFirst(authority.count))
        if target.isEmpty { target = "/" } else if target.hasPrefix("?") { target = "/" + target }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        if let colon = authority.lastIndex(of: ":") {
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else {
                return nil
            }
            return (String(authority[..<colon]), port, target)
        }
        return (String(authority), 80, target)
    }

    /// `whsec_<base64>` as Standard Webhooks issues it, else the text's bytes.
    static func decodeSecret(_ raw: [UInt8]) -> [UInt8] {
        let text = String(decoding: raw, as: UTF8.self)
        if text.hasPrefix("whsec_"), let data = Data(base64Encoded: String(text.dropFirst("whsec_".count))) {
            return Array(data)
        }
        return raw
    }
}
