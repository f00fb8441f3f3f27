import LifecycleCore

/// The outcome of ``AppleCredentialCheck``: one `client-secret` and one `token-endpoint` line per client ID.
public struct AppleCheckReport: Sendable {
    /// The app's name in the configuration, when known.
    public var app: String?
    public var baseURL: String
    public var teamID: String
    public var keyID: String
    public var items: [AppleCheckItem]

    public init(app: String?, baseURL: String, teamID: String, keyID: String, items: [AppleCheckItem]) {
        self.app = app
        self.baseURL = baseURL
        self.teamID = teamID
        self.keyID = keyID
        self.items = items
    }

    /// True only when Apple accepted the credentials of every client ID. A warning (Apple throttled or failed)
    /// leaves them unverified, so it is not acceptance: the command exits 1 and says to retry.
    public var credentialsAccepted: Bool {
        !items.isEmpty
            && items.filter { $0.id == AppleCredentialCheck.tokenEndpointID }.allSatisfy { $0.status == .pass }
            && !items.contains { $0.status == .fail }
    }

    /// 0 when ``credentialsAccepted``, 1 otherwise.
    public var exitCode: Int32 { credentialsAccepted ? 0 : 1 }

    public func item(_ id: String, clientID: String) -> AppleCheckItem? {
        items.first { $0.id == id && $0.clientID == clientID }
    }

    /// One ✓/!/✗ line per check, the fix under each warning or failure, then the verdict.
    public func renderText() -> String {
        var lines = [
            "Apple check\(app.map { " for app \($0)" } ?? "") at \(baseURL) (team \(teamID), key \(keyID))", "",
        ]
        for item in items {
            lines.append("\(item.status.symbol) \(item.id) [\(item.clientID)]: \(item.detail)")
            if let fix = item.fix, item.status == .fail || item.status == .warning { lines.append("    fix: \(fix)") }
        }
        lines.append("")
        lines.append(
            credentialsAccepted
                ? "ACCEPTED: Apple accepts these credentials for every client ID."
                : "NOT ACCEPTED: fix or retry the lines marked ✗ or ! above.")
        return lines.joined(separator: "\n")
    }

    public func renderJSON() -> JSONValue {
        let checks = items.map { item -> JSONValue in
            var object: JSONObject = [
                "id": .string(item.id), "clientID": .string(item.clientID), "status": .string(item.status.rawValue),
                "detail": .string(item.detail),
            ]
            if let fix = item.fix { object["fix"] = .string(fix) }
            return .object(object)
        }
        var object: JSONObject = [
            "baseURL": .string(baseURL), "teamID": .string(teamID), "keyID": .string(keyID),
            "accepted": .bool(credentialsAccepted), "checks": .array(checks),
        ]
        if let app { object["app"] = .string(app) }
        return .object(object)
    }
}
