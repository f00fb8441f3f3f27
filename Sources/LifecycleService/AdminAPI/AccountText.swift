import LifecycleCore

/// The text form of the account documents for `lifecycle account` without `--json`: one headline, then
/// the history and outbox as aligned lines. Built from the JSON document so `--url` and the store print
/// the same.
enum AccountText {
    static func render(_ document: JSONValue) -> String {
        func text(_ value: JSONValue?) -> String { value?.stringValue ?? "-" }
        var lines: [String] = []
        let forwarding = document["emailForwarding"]?.boolValue == false ? "off" : "on"
        var headline = "\(text(document["app"])) \(text(document["sub"])): \(text(document["state"]))"
        headline += " (e-mail forwarding \(forwarding))"
        if let disposition = document["disposition"]?.stringValue {
            headline += ", input \(disposition)"
            if let reason = document["reason"]?.stringValue { headline += " (\(reason))" }
        }
        lines.append(headline)
        var dates = "created \(text(document["createdAt"])), updated \(text(document["updatedAt"]))"
        if let deletedAt = document["deletedAt"]?.stringValue {
            dates += ", deleted \(deletedAt) by \(text(document["deletedBy"]))"
        }
        lines.append(dates)
        if let history = document["history"]?.arrayValue {
            lines.append("history:")
            for entry in history {
                var line = "  \(text(entry["eventTime"]))  \(text(entry["input"]))  \(text(entry["disposition"]))"
                if let reason = entry["reason"]?.stringValue { line += " (\(reason))" }
                line += "  \(entry["from"]?.stringValue ?? "new") -> \(text(entry["to"]))"
                let effects = entry["effects"]?.arrayValue?.compactMap { $0["effect"]?.stringValue } ?? []
                if !effects.isEmpty { line += "  [\(effects.joined(separator: ", "))]" }
                line += "  via \(text(entry["source"]))"
                lines.append(line)
            }
        }
        if let outbox = document["outbox"]?.arrayValue, !outbox.isEmpty {
            lines.append("outbox:")
            for message in outbox {
                var line = "  #\(message["id"]?.integerValue ?? 0) \(text(message["kind"])) \(text(message["status"]))"
                line += ", \(message["attempts"]?.integerValue ?? 0) attempts"
                if let error = message["lastError"]?.stringValue { line += ", last error: \(error)" }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
