import LifecycleCore
import LifecycleStore

/// The JSON shapes of the admin API, built in one place so the HTTP routes and `lifecycle account` (which
/// prints the same documents) cannot drift apart. The shapes are the ones `admin.openapi.json` describes.
/// They carry the `sub`: the admin API is for operators, behind the bearer token, never for logs.
enum AdminDocuments {
    /// The identifier changes that concern an account (RISC `identifier-changed`, `identifier-recycled`):
    /// each row names an identifier and the account it names from `recordedAt` on; `inForce` is false once a
    /// later row of the same identifier replaced it.
    static func aliases(_ rows: [StoredAccountAlias]) -> [JSONValue] {
        var latest: [String: Int64] = [:]
        for row in rows { latest[row.alias.alias] = max(latest[row.alias.alias] ?? row.id, row.id) }
        return rows.map { row in
            .object([
                "identifier": .string(row.alias.alias), "account": .string(row.alias.subject),
                "kind": .string(row.alias.kind.rawValue), "recordedAt": .string(row.alias.recordedAt.iso8601),
                "inForce": .bool(latest[row.alias.alias] == row.id),
            ])
        }
    }

    /// An account's record without its history: what `link` and `deletion` answer.
    static func account(app: String, subject: String, record: AccountRecord) -> JSONObject {
        var object: JSONObject = [
            "app": .string(app), "sub": .string(subject),
            "provider": .string(ProviderSubject.providerName(ofAccountKey: subject)),
            "state": .string(record.state.canonicalName), "emailForwarding": .bool(record.emailForwarding),
            "createdAt": .string(record.createdAt.iso8601),
            "updatedAt": .string(record.updatedAt.iso8601),
            "lastAppliedEventTime": .string(record.lastAppliedEventTime.iso8601),
        ]
        if let deletedAt = record.deletedAt { object["deletedAt"] = .string(deletedAt.iso8601) }
        if let deletedBy = record.deletedBy { object["deletedBy"] = .string(deletedBy.canonicalName) }
        return object
    }

    /// One history line: what arrived, when, what the state machine did with it and why.
    static func history(_ stored: StoredHistoryEntry) -> JSONValue {
        let entry = stored.entry
        var object: JSONObject = [
            "id": .integer(stored.id), "input": .string(entry.kind.canonicalName), "identity": .string(entry.identity),
            "eventTime": .string(entry.eventTime.iso8601), "receivedAt": .string(entry.receivedAt.iso8601),
            "disposition": .string(entry.disposition.canonicalName),
            "from": entry.fromState.map { .string($0.canonicalName) } ?? .null,
            "to": .string(entry.toState.canonicalName), "effects": .array(entry.effects.map(effect)),
            "source": .string(stored.source),
        ]
        if let reason = entry.disposition.reason { object["reason"] = .string(reason) }
        if let notificationID = stored.notificationID { object["notificationId"] = .integer(notificationID) }
        return .object(object)
    }

    static func effect(_ effect: AccountEffect) -> JSONValue {
        var object: JSONObject = ["effect": .string(effect.canonicalName)]
        switch effect {
        case .emailForwardingChanged(let enabled): object["enabled"] = .bool(enabled)
        case .schedulePolicy(let trigger): object["trigger"] = .string(trigger.rawValue)
        case .terminateSessions, .dropAppleTokens, .revokeAppleTokens, .cancelRelinkCancellableJobs: break
        }
        return .object(object)
    }

    /// One outbox message with its delivery bookkeeping; `payload` is the frozen webhook body, included when
    /// asked (the outbox listing) and left out of account views, where the account is already known.
    static func outboxMessage(_ message: OutboxMessage, includePayload: Bool) -> JSONValue {
        func instant(_ value: Instant?) -> JSONValue { value.map { .string($0.iso8601) } ?? .null }
        var object: JSONObject = [
            "id": .integer(message.id), "webhookId": .string(message.messageID), "app": .string(message.app),
            "sub": .string(message.subject),
            "kind": .string(message.kind), "status": .string(message.status.rawValue),
            "attempts": .integer(Int64(message.attempts)), "createdAt": .string(message.createdAt.iso8601),
            "availableAt": .string(message.availableAt.iso8601), "leasedUntil": instant(message.leasedUntil),
            "lastAttemptAt": instant(message.lastAttemptAt),
            "lastError": message.lastError.map { .string($0) } ?? .null,
            "lastStatusCode": message.lastStatusCode.map { .integer(Int64($0)) } ?? .null,
            "deliveredAt": instant(message.deliveredAt),
        ]
        if includePayload {
            object["payload"] = JSONValue.parseIfValid(Array(message.payload.utf8)) ?? .string(message.payload)
        }
        return .object(object)
    }

    /// An account's Apple token vault state (`held`, `not-held`, `revoked`) with its times and client ID:
    /// never the token.
    static func appleToken(app: String, subject: String, stored: StoredAppleToken?) -> JSONObject {
        var object: JSONObject = [
            "app": .string(app), "sub": .string(subject),
            "state": .string(stored?.vaultState.canonicalName ?? AppleTokenVaultState.notHeld.canonicalName),
        ]
        guard let stored else { return object }
        object["clientId"] = .string(stored.clientID)
        object["linkedVia"] = .string(stored.source.rawValue)
        object["linkedAt"] = .string(stored.linkedAt.iso8601)
        if let droppedAt = stored.droppedAt { object["droppedAt"] = .string(droppedAt.iso8601) }
        if let revokedAt = stored.revokedAt { object["revokedAt"] = .string(revokedAt.iso8601) }
        if let lastProbeAt = stored.lastProbeAt { object["lastProbeAt"] = .string(lastProbeAt.iso8601) }
        return object
    }
}
