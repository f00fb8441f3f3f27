import LifecycleCore

/// The text form of the account documents for `lifecycle account` without `--json`: one headline, then
/// the history, outbox and erasure jobs (with each step's evidence) as aligned lines. Built from the JSON document so `--url` and the store print
/// the same.
package enum AccountText {
    package static func render(_ document: JSONValue) -> String {
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
        if let jobs = document["erasureJobs"]?.arrayValue, !jobs.isEmpty {
            lines.append("erasure jobs:")
            for job in jobs {
                var line = "  #\(job["id"]?.integerValue ?? 0) \(text(job["status"]))  \(text(job["trigger"]))"
                line += "  policy \(text(job["policy"]))  not before \(text(job["not_before"]))"
                line += "  deadline \(text(job["deadline"]))"
                if let finished = job["finished_at"]?.stringValue { line += "  finished \(finished)" }
                if let reason = job["cancel_reason"]?.stringValue { line += "  cancelled (\(reason))" }
                lines.append(line)
                for step in job["steps"]?.arrayValue ?? [] { lines.append("    " + Self.step(step)) }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// One erasure step and its evidence: `app-db done, 1 attempt, 3 rows affected, verification count 0`.
    package static func step(_ step: JSONValue) -> String {
        func count(_ value: Int64, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }
        var parts = ["\(step["target"]?.stringValue ?? "-") \(step["status"]?.stringValue ?? "-")"]
        parts.append(count(step["attempts"]?.integerValue ?? 0, "attempt"))
        if let rows = step["rows_affected"]?.integerValue { parts.append(count(rows, "row") + " affected") }
        if let remaining = step["verification_count"]?.integerValue { parts.append("verification count \(remaining)") }
        if let status = step["response_status"]?.integerValue { parts.append("response \(status)") }
        if let code = step["error_code"]?.stringValue { parts.append("last error \(code)") }
        if let finished = step["finished_at"]?.stringValue { parts.append("finished \(finished)") }
        return parts.joined(separator: ", ")
    }
}
