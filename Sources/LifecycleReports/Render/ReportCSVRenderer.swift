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
        // One line's text, reused: a large month has a million lines of a few kilobytes each.
        var line = ""
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
            line.removeAll(keepingCapacity: true)
            for (position, value) in values.enumerated() {
                if position > 0 { line += "," }
                appendField(value, to: &line)
            }
            line += "\r\n"
            emit(line)
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
        var text = ""
        appendField(value, to: &text)
        return text
    }

    /// Appends `value` as one RFC 4180 field: as it is, or quoted with every quote doubled when it holds a
    /// comma, a quote, CR or LF. Done on UTF-8 bytes: those four are ASCII and no byte of a multi-byte sequence
    /// equals one, so a quote followed by a combining mark is doubled too (String.replacingOccurrences compares
    /// Characters and left such a quote single, ending the field early).
    static func appendField(_ value: String, to text: inout String) {
        let utf8 = value.utf8
        let special: (UInt8) -> Bool = {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n")
        }
        guard utf8.contains(where: special) else {
            text += value
            return
        }
        text += "\""
        var runStart = utf8.startIndex
        var index = runStart
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "\"") {
                // Both ends of the run are ASCII bytes, so scalar boundaries: the run through this quote, then
                // the quote again.
                let next = utf8.index(after: index)
                text += String(value.unicodeScalars[runStart..<next])
                text += "\""
                runStart = next
            }
            index = utf8.index(after: index)
        }
        if runStart != utf8.endIndex { text += String(value.unicodeScalars[runStart..<utf8.endIndex]) }
        text += "\""
    }
}
