import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore

/// Plays Apple for the demo: signs notifications with the throwaway development key the demo's
/// configuration trusts, and POSTs them to the service over loopback, as `lifecycle simulate` does.
struct DemoNotifier: Sendable {
    let signer: NotificationSigner
    let audience: String
    let issuer: String
    let client: HTTPClient
    let path: String

    /// What the service answered one POST.
    struct Answer: Sendable {
        var status: Int
        var document: JSONValue?

        /// `accepted (applied) -> consent-revoked`, `duplicate of #4`, `ignored: unknown event type …`.
        var summary: String {
            guard let document, let outcome = document["status"]?.stringValue else {
                return "HTTP \(status)"
            }
            let id = document["id"]?.integerValue.map { "#\($0)" } ?? "?"
            switch outcome {
            case "accepted":
                let disposition = document["disposition"]?.stringValue ?? "?"
                let state = document["state"]?.stringValue ?? "?"
                return "\(status) accepted as \(id), \(disposition), state \(state)"
            case "duplicate":
                return "\(status) duplicate of \(id), nothing changed"
            case "ignored":
                return "\(status) ignored (\(document["reason"]?.stringValue ?? "?")), stored as \(id)"
            default:
                return "\(status) \(outcome)"
            }
        }
    }

    /// A notification body exactly as Apple sends it: `{"payload": "<JWS>"}`, `events` a JSON string, a fresh
    /// `jti`. The type is sent as given, so an unknown one reaches the service unchanged.
    func body(type: String, subject: String, eventTime: Instant, email: String? = nil, now: Instant) throws
        -> [UInt8]
    {
        let event = AppleEvent(
            type: AppleEventType(wireValue: type), subject: subject, eventTime: eventTime,
            isPrivateEmail: email.map { $0.hasSuffix("privaterelay.appleid.com") }, email: email)
        var claims = NotificationSigner.claims(
            event: event, audience: audience, issuedAt: now, issuer: issuer, jti: NotificationSigner.makeJTI())
        var eventClaim = NotificationSigner.eventClaim(event)
        eventClaim["type"] = .string(type)
        claims["events"] = .string(JSONValue.object(eventClaim).encodedString)
        return NotificationBody.encode(jws: try signer.sign(claims: claims))
    }

    func post(_ body: [UInt8]) async throws -> Answer {
        let response = try await client.post(path, headers: ["Content-Type": "application/json"], body: body)
        return Answer(status: response.status, document: JSONValue.parseIfValid(response.body))
    }
}
