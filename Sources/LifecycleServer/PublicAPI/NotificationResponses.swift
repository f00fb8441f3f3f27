import HTTP1
import LifecycleCore
import LifecycleEngine

/// How an ``IngestOutcome`` is answered (DESIGN.md §4, RFC 8935 §2.4 error shape).
///
/// Apple documents no status semantics; its support says a non-200 or a timeout is retried. So: 200 only
/// after the commit, also for duplicates and unknown types (retrying those cannot help); 400 for input that
/// can never verify (retrying cannot help either, and the reason is in the body); 503 when the fault is ours,
/// so Apple retries.
enum NotificationResponses {
    static func response(for outcome: IngestOutcome) -> HTTPResponse {
        switch outcome {
        case .accepted(let id, _, _, let account):
            .jsonDocument([
                "status": "accepted", "id": .integer(id), "disposition": .string(account.disposition.canonicalName),
                "state": .string(account.state.canonicalName),
            ])
        case .duplicate(let id):
            .jsonDocument(["status": "duplicate", "id": .integer(id)])
        case .ignored(let id, _, let type):
            .jsonDocument([
                "status": "ignored", "id": .integer(id),
                "reason": .string("unknown event type \(type.quotedForError(maxBytes: 64))"),
            ])
        case .rejected(let error):
            .jsonDocument(
                [
                    "err": .string(error.code.rfc8935Error), "code": .string(error.code.rawValue),
                    "description": .string(error.description),
                ], status: .badRequest)
        case .unavailable(let reason):
            .jsonDocument(
                ["err": "temporarily_unavailable", "description": .string(reason.quotedForError(maxBytes: 1024))],
                status: .serviceUnavailable)
        }
    }
}
