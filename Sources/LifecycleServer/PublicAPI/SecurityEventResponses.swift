import HTTP1
import LifecycleCore
import LifecycleEngine

/// How a ``SecurityEventOutcome`` is answered (RFC 8935 §2.2–2.4): `202 Accepted` with no body once the SET is
/// committed, duplicates too (the transmitter must not resend); `400` with `{"err", "description"}` and the
/// reason `code` for a SET that can never be accepted; `503` when the fault is ours, so the transmitter
/// retries.
enum SecurityEventResponses {
    static func response(for outcome: SecurityEventOutcome) -> HTTPResponse {
        switch outcome {
        case .accepted, .duplicate:
            .empty(.accepted)
        case .rejected(let error):
            .jsonDocument(
                [
                    "err": .string(error.code.rfc8935Error), "description": .string(error.description),
                    "code": .string(error.code.rawValue),
                ], status: .badRequest)
        case .unavailable(let reason):
            .jsonDocument(
                ["err": "temporarily_unavailable", "description": .string(reason.quotedForError(maxBytes: 1024))],
                status: .serviceUnavailable)
        }
    }
}
