import LifecycleCore

/// The outcome of `EndpointChecker.run()`: the checklist, the verdict, and how to print both.
public struct EndpointCheckReport: Sendable {
    public var url: String
    public var items: [EndpointCheckItem]

    /// Ready when nothing failed; warnings do not block registration.
    public var isReady: Bool { !items.contains { $0.status == .fail } }

    public func item(_ id: String) -> EndpointCheckItem? { items.first { $0.id == id } }

    /// Why the Korea section exists (DOMAIN.md §5; Apple Developer News, 2025-10-09).
    static let koreaRequirement =
        "Apple requires developers based in the Republic of Korea to provide a server-to-server notification "
        + "endpoint when registering or updating a Services ID (since 2026-01-01)."

    var koreaSummary: String {
        let failures = items.filter { $0.status == .fail }.count
        let warnings = items.filter { $0.status == .warning }.count
        if failures > 0 {
            return "NOT READY: fix the \(failures) failed check\(failures == 1 ? "" : "s") above before registering "
                + "this URL as the Services ID's server-to-server notification endpoint."
        }
        let caveat = warnings > 0 ? " (\(warnings) warning\(warnings == 1 ? "" : "s") to review)" : ""
        return "READY\(caveat): register this URL as the Services ID's server-to-server notification endpoint."
    }

    /// The human checklist: one ✓/!/✗ line per check, the fix under each warning or failure, then the Korea
    /// registration verdict.
    public func renderText() -> String {
        var lines = ["Endpoint check for \(url)", ""]
        for item in items {
            lines.append("\(item.status.symbol) \(item.id): \(item.detail)")
            if let fix = item.fix, item.status == .fail || item.status == .warning { lines.append("    fix: \(fix)") }
        }
        lines.append("")
        lines.append("Korea registration readiness")
        lines.append("  \(Self.koreaRequirement)")
        lines.append("  \(koreaSummary)")
        return lines.joined(separator: "\n")
    }

    public func renderJSON() -> JSONValue {
        let checks = items.map { item -> JSONValue in
            var object: JSONObject = [
                "id": .string(item.id), "status": .string(item.status.rawValue), "detail": .string(item.detail),
            ]
            if let fix = item.fix { object["fix"] = .string(fix) }
            return .object(object)
        }
        return .object([
            "url": .string(url), "ready": .bool(isReady), "checks": .array(checks),
            "korea": .object([
                "requirement": .string(Self.koreaRequirement), "ready": .bool(isReady),
                "summary": .string(koreaSummary),
            ]),
        ])
    }
}
