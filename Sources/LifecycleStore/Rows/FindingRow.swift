import LifecycleCore

/// One `findings` row as both stores decode it (columns: id, app, code, severity, subject, detail,
/// window_from_ms, window_to_ms, first_seen_at_ms, last_seen_at_ms, last_run_id, resolved_at_ms).
enum FindingRow {
    /// The identity of a finding: its subject, or the start of its window, or nothing (one per code).
    static func subjectKey(_ finding: Finding) -> String {
        if let subject = finding.subject { return "sub:" + subject }
        if let window = finding.window { return "window:\(window.from.millisecondsSinceEpoch)" }
        return "-"
    }

    static func decode<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> StoredFinding {
        guard let code = FindingCode(rawValue: row.text(2)), let severity = FindingSeverity(rawValue: row.text(3))
        else { throw Row.unreadable("findings", "code") }
        var window: FindingWindow?
        if let from = row.optionalInstant(6), let to = row.optionalInstant(7) {
            window = FindingWindow(from: from, to: to)
        }
        return StoredFinding(
            id: row.int64(0), app: row.text(1),
            finding: Finding(
                code: code, severity: severity, subject: row.optionalText(4), detail: row.text(5), window: window),
            firstSeenAt: row.instant(8), lastSeenAt: row.instant(9), lastRunID: row.int64(10),
            resolvedAt: row.optionalInstant(11))
    }
}
