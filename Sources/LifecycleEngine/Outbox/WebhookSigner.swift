import Foundation
import LifecycleCrypto

/// Signs webhook deliveries the way Standard Webhooks specifies (standardwebhooks.com, "Signature scheme"):
/// `webhook-signature: v1,<base64 HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>")>`.
/// Receivers verify with any Standard Webhooks library, reject stale timestamps and de-duplicate on the id.
public struct WebhookSigner: Sendable {
    private let key: [UInt8]

    /// `whsec_<base64>` secrets (the format Standard Webhooks libraries generate) are base64-decoded;
    /// any other text is used as its UTF-8 bytes.
    public init(secret: [UInt8]) {
        let text = String(decoding: secret, as: UTF8.self)
        if text.hasPrefix("whsec_"), let decoded = Data(base64Encoded: String(text.dropFirst("whsec_".count))) {
            key = Array(decoded)
        } else {
            key = secret
        }
    }

    public func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        let message = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Data(HMACSHA256.authenticate(message, key: key)).base64EncodedString()
    }

    /// The three headers of one delivery.
    public func headers(id: String, timestamp: Int64, body: [UInt8]) -> [(String, String)] {
        [
            ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", signature(id: id, timestamp: timestamp, body: body)),
        ]
    }

    /// Verifies a received signature header (which may list several space-separated signatures).
    public func verify(id: String, timestamp: Int64, body: [UInt8], signatureHeader: String) -> Bool {
        let expected = Array(signature(id: id, timestamp: timestamp, body: body).utf8)
        return signatureHeader.split(separator: " ").contains { candidate in
            ConstantTime.equals(Array(candidate.utf8), expected)
        }
    }
}
