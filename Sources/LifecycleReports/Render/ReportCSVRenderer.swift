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
        var bytes: [UInt8] = []
        render(dataset) { bytes += $0 }
        return bytes
    }

    /// The same bytes in pieces, a line at a time, so a writer can stream a large month to its file. A line is
    /// built as bytes in one buffer reused from row to row; instants and fixed words, which never need quoting,
    /// are written as they are.
    public static func render(_ dataset: ReportDataset, into emit: ([UInt8]) -> Void) {
        emit(Array((columns.map(field).joined(separator: ",") + "\r\n").utf8))
        var line: [UInt8] = []
        func text(_ value: String) { appendField(value, to: &line) }
        func instant(_ value: Instant?) { if let value { ISO8601Format.write(value, into: &line) } }
        func comma() { line.append(UInt8(ascii: ",")) }
        for row in dataset.subjects {
            line.removeAll(keepingCapacity: true)
            text(row.pseudonym)
            comma()
            text(row.eventType)
            comma()
            text(row.source.rawValue)
            comma()
            instant(row.eventTime)
            comma()
            instant(row.receivedAt)
            comma()
            text(row.policy ?? "")
            comma()
            instant(row.deadline)
            comma()
            text(row.outcome.rawValue)
            comma()
            text(row.onTime.map { $0 ? "true" : "false" } ?? "")
            comma()
            instant(row.completedAt)
            comma()
            if let days = row.daysToComplete { JSONValue.number(days).serialize(into: &line) }
            comma()
            text(row.verification.rawValue)
            comma()
            text(row.targets.map(target).joined(separator: "; "))
            comma()
            text(
                row.retained.map { "\($0.category) kept under \($0.basis) until \($0.purgeAt.iso8601) (\($0.status))" }
                    .joined(separator: "; "))
            comma()
            instant(row.remainingCopies?.backupsBeyondUseBy)
            comma()
            instant(row.remainingCopies?.masterKey?.retiredAt)
            comma()
            text(row.remainingCopies?.statement ?? "")
            comma()
            text(row.appleRevocation?.summaryText ?? "")
            comma()
            instant(row.acknowledgedAt)
            comma()
            text(row.extension?.summaryText ?? "none")
            comma()
            text(row.denial?.summaryText ?? "none")
            comma()
            text(row.response.rawValue)
            comma()
            instant(row.respondedAt)
            comma()
            text(row.cancellation?.summaryText ?? "")
            comma()
            text(row.holds.isEmpty ? "none" : row.holds.map(\.summaryText).joined(separator: "; "))
            comma()
            text(row.provider)
            line.append(contentsOf: [UInt8(ascii: "\r"), UInt8(ascii: "\n")])
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
        var bytes: [UInt8] = []
        appendField(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as one RFC 4180 field: as it is, or quoted with every quote doubled when it holds a
    /// comma, a quote, CR or LF. Done on UTF-8 bytes: those four are ASCII and no byte of a multi-byte sequence
    /// equals one, so a quote followed by a combining mark is doubled too (String.replacingOccurrences compares
    /// Characters and left such a quote single, ending the field early).
    static func appendField(_ value: String, to output: inout [UInt8]) {
        let quote = UInt8(ascii: "\"")
        var value = value
        value.withUTF8 { bytes in
            var special = false
            for byte in bytes
            where byte == UInt8(ascii: ",") || byte == quote || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
            {
                special = true
                break
            }
            guard special else {
                output.append(contentsOf: bytes)
                return
            }
            // The runs between quotes are copied whole; each quote is copied with its run, then written again.
            output.append(quote)
            var runStart = 0
            for index in bytes.indices where bytes[index] == quote {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...index]))
                output.append(quote)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            output.append(quote)
        }
    }
}
