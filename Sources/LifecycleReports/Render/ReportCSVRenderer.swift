import Foundation
import LifecycleCore

/// Renders the per-subject rows of a ``ReportDataset`` as CSV (RFC 4180): a header line, CRLF line breaks,
/// fields quoted when they contain a comma, a double quote, CR or LF, with inner quotes doubled (§2.6, §2.7).
/// Targets and retained items, lists inside one row, are joined with `; ` in one field each.
public enum ReportCSVRenderer {
    public static let columns = [
        "subject", "event_type", "source", "event_time", "received_at", "policy", "deadline", "outcome", "on_time",
        "completed_at", "days_to_complete", "verification", "targets", "retained", "backups_beyond_use_by",
        "master_key_retired_at", "remaining_copies", "apple_revocation", "acknowledged_at", "extension", "denial",
        "response", "responded_at", "cancellation", "holds", "provider",
    ]

    public static func render(_ dataset: ReportDataset) -> [UInt8] {
        var text = ""
        render(dataset) { text += $0 }
        return Array(text.utf8)
    }

    /// The same bytes in pieces, a line at a time, so a writer can stream a large month to its file.
    public static func render(_ dataset: ReportDataset, into emit: (String) -> Void) {
        emit(columns.map(field).joined(separator: ",") + "\r\n")
        for row in dataset.subjects {
            let values: [String] = [
                row.pseudonym, row.eventType, row.source.rawValue, row.eventTime.iso8601, row.receivedAt.iso8601,
                row.policy ?? "", row.deadline?.iso8601 ?? "", row.outcome.rawValue,
                row.onTime.map { $0 ? "true" : "false" } ?? "", row.completedAt?.iso8601 ?? "",
                row.daysToComplete.map { JSONValue.number($0).serialized() } ?? "", row.verification.rawValue,
                row.targets.map(target).joined(separator: "; "),
                row.retained.map { "\($0.category) kept under \($0.basis) until \($0.purgeAt.iso8601) (\($0.status))" }
                    .joined(separator: "; "),
                row.remainingCopies?.backupsBeyondUseBy?.iso8601 ?? "",
                row.remainingCopies?.masterKey?.retiredAt?.iso8601 ?? "", row.remainingCopies?.statement ?? "",
                row.appleRevocation?.summaryText ?? "", row.acknowledgedAt?.iso8601 ?? "",
                row.extension?.summaryText ?? "none", row.denial?.summaryText ?? "none",
                row.response.rawValue, row.respondedAt?.iso8601 ?? "", row.cancellation?.summaryText ?? "",
                row.holds.isEmpty ? "none" : row.holds.map(\.summaryText).joined(separator: "; "), row.provider,
            ]
            emit(values.map(field).joined(separator: ",") + "\r\n")
        }
    }

    /// `target rule: status, N attempts, finished TIME, evidence` in plain words.
    package static func target(_ value: ReportTargetOutcome) -> String {
        var parts = ["\(value.target) \(value.rule): \(value.status)", "\(value.attempts) attempts"]
        if let finished = value.finishedAt { parts.append("finished \(finished.iso8601)") }
        if let rows = value.rowsAffected { parts.append("rows \(rows)") }
        if let count = value.verificationCount { parts.append("verify \(count)") }
        if let status = value.responseStatus { parts.append("http \(status)") }
        if let code = value.errorCode { parts.append("error \(code)") }
        if let keys = value.keysDestroyed { parts.append("keys destroyed \(keys)") }
        if let hygiene = value.hygiene { parts.append("hygiene \(hygiene)") }
        return parts.joined(separator: ", ")
    }

    /// One RFC 4180 field.
    public static func field(_ value: String) -> String {
        let needsQuotes = value.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }
        guard needsQuotes else { return value }
        // Doubled per scalar: String.replacingOccurrences compares Characters, and a quote followed by a
        // combining mark is another Character, so it would stay single and end the field early.
        var quoted = "\""
        for scalar in value.unicodeScalars {
            if scalar == "\"" { quoted += "\"" }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }
}
