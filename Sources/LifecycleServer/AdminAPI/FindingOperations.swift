import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// What the admin API (and tooling) asks about reconciler findings.
struct FindingOperations: Sendable {
    let context: ServiceContext
    static let defaultLimit = 100

    func list(app: String?, includeResolved: Bool, limit: Int?, after: Int64?) async throws -> JSONValue {
        if let app, !context.configuration.apps.contains(where: { $0.id == app }) {
            throw AdminError(status: 404, code: .unknownApp, "no app with that id is configured")
        }
        let pageSize = limit ?? Self.defaultLimit
        let rows = try await context.store.read { reader in
            try reader.findings(app: app, includeResolved: includeResolved, limit: pageSize, afterID: after)
        }
        return [
            "findings": .array(rows.map(Self.json)),
            "next": rows.count == pageSize ? rows.last.map { .integer($0.id) } ?? .null : .null,
        ]
    }

    static func json(_ stored: StoredFinding) -> JSONValue {
        var object: JSONObject = [
            "id": .integer(stored.id), "app": .string(stored.app), "code": .string(stored.finding.code.rawValue),
            "severity": .string(stored.finding.severity.rawValue), "detail": .string(stored.finding.detail),
            "subject": stored.finding.subject.map(JSONValue.string) ?? .null,
            "provider": stored.finding.subject.map { .string(ProviderSubject.providerName(ofAccountKey: $0)) } ?? .null,
            "firstSeenAt": .string(stored.firstSeenAt.iso8601), "lastSeenAt": .string(stored.lastSeenAt.iso8601),
            "resolvedAt": stored.resolvedAt.map { .string($0.iso8601) } ?? .null,
        ]
        if let window = stored.finding.window {
            object["window"] = ["from": .string(window.from.iso8601), "to": .string(window.to.iso8601)]
        }
        return .object(object)
    }
}
