import LifecycleCore

/// Renders a ``ReportDataset`` as one self-contained HTML page for compliance staff: inline CSS and SVG,
/// no script, no font, image or style sheet from the network, so it opens offline, archives as one file and
/// prints on A4. Every value from the dataset is HTML-escaped.
///
/// The summary figures carry `data-figure` attributes naming the JSON member they show, so a reader (and a
/// test) can match the page against the JSON report.
public enum ReportHTMLRenderer {
    public static func render(_ dataset: ReportDataset) -> [UInt8] { Array(page(dataset).utf8) }

    static func page(_ dataset: ReportDataset) -> String {
        let e = HTMLText.escape
        let period = "\(ReportPeriod.dayName(dataset.period.from)) to \(ReportPeriod.dayName(dataset.period.to))"
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Deletion compliance: \(e(dataset.app)), \(e(period))</title>
            <style>\(style)</style>
            </head>
            <body>
            <header>
            <h1>Deletion-compliance report</h1>
            <p class="meta">App <b>\(e(dataset.app))</b> · period <b>\(e(dataset.period.from.iso8601))</b> to
            <b>\(e(dataset.period.to.iso8601))</b> (UTC, end excluded) · generated \(e(dataset.generatedAt.iso8601))</p>
            <p class="meta">Subjects appear as keyed pseudonyms (key \(e(dataset.pseudonymKeyID))); no Apple user
            identifier, e-mail address or token is in this report.</p>
            </header>

            """
        html += summarySection(dataset)
        html += """
            <section>
            <h2>Days from event to completed erasure, against the deadline</h2>
            \(ReportCharts.daysToErasure(dataset))<p class="legend"><span class="key dot-key"></span> one completed request
            <span class="key late-key"></span> completed late <span class="key median-key"></span> median
            <span class="key p95-key"></span> 95th percentile <span class="key deadline-key"></span> deadline
            (shaded: time allowed)</p>
            </section>
            <section>
            <h2>Events per day by type</h2>
            \(ReportCharts.eventsPerDay(dataset))<p class="legend">\(eventLegend())</p>
            </section>

            """
        html += findingsSection(dataset)
        html += retainedSection(dataset)
        html += remainingCopiesSection(dataset)
        html += failedSection(dataset)
        html += requestsSection(dataset)
        html += integritySection(dataset)
        return html + "</body>\n</html>\n"
    }

    private static func figure(_ name: String, _ value: String, _ label: String, alert: Bool = false) -> String {
        "<div class=\"tile\(alert ? " alert" : "")\"><div class=\"value\" data-figure=\"\(name)\">"
            + "\(HTMLText.escape(value))</div><div class=\"label\">\(HTMLText.escape(label))</div></div>\n"
    }

    static func daysText(_ value: Double?) -> String { value.map(ReportNumbers.days) ?? "n/a" }
    static func rateText(_ value: Double?) -> String { value.map(ReportNumbers.percent) ?? "n/a" }

    private static func summarySection(_ dataset: ReportDataset) -> String {
        let total = dataset.summary.total
        var html = "<section>\n<h2>At a glance</h2>\n<div class=\"tiles\">\n"
        html += figure("received", String(total.received), "requests received")
        html += figure("completed", String(total.completed), "completed")
        html += figure("pending", String(total.pending), "pending, within deadline")
        html += figure("overdue", String(total.overdue), "overdue", alert: total.overdue > 0)
        html += figure("failed", String(total.failed), "failed, within deadline", alert: total.failed > 0)
        html += figure("onTimeRate", rateText(total.onTimeRate), "on time (of decided requests)")
        html += figure("medianDaysToComplete", daysText(total.medianDaysToComplete), "median days to erase")
        html += figure("p95DaysToComplete", daysText(total.p95DaysToComplete), "95th percentile days")
        html += "</div>\n<table>\n<thead><tr><th>Event type</th><th>Received</th><th>Completed</th>"
        html += "<th>with exceptions</th><th>Pending</th><th>Overdue</th><th>Failed</th><th>Cancelled</th>"
        html += "<th>On time</th><th>Median days</th><th>p95 days</th><th>Deadline days</th></tr></thead>\n<tbody>\n"
        for summary in dataset.summary.byType + [dataset.summary.total] {
            let type = summary.type
            let cells = [
                "<td data-type=\"\(HTMLText.escape(type))\" data-figure=\"received\">\(summary.received)</td>",
                "<td data-figure=\"completed\">\(summary.completed)</td>",
                "<td data-figure=\"completedWithExceptions\">\(summary.completedWithExceptions)</td>",
                "<td data-figure=\"pending\">\(summary.pending)</td>",
                "<td data-figure=\"overdue\"\(summary.overdue > 0 ? " class=\"bad\"" : "")>\(summary.overdue)</td>",
                "<td data-figure=\"failed\"\(summary.failed > 0 ? " class=\"bad\"" : "")>\(summary.failed)</td>",
                "<td data-figure=\"cancelled\">\(summary.cancelled)</td>",
                "<td data-figure=\"onTimeRate\">\(rateText(summary.onTimeRate))</td>",
                "<td data-figure=\"medianDaysToComplete\">\(daysText(summary.medianDaysToComplete))</td>",
                "<td data-figure=\"p95DaysToComplete\">\(daysText(summary.p95DaysToComplete))</td>",
                "<td>\(daysText(summary.deadlineDays))</td>",
            ]
            let name = type == "all" ? "<th>All types</th>" : "<th>\(swatch(type))\(HTMLText.escape(type))</th>"
            html += "<tr\(type == "all" ? " class=\"total\"" : "")>\(name)\(cells.joined())</tr>\n"
        }
        html += "</tbody>\n</table>\n"
        html +=
            "<p class=\"meta\">Failed jobs: <b data-figure=\"failedJobs\">\(dataset.summary.failedJobs)</b> · "
            + "retained items: <b data-figure=\"retainedItems\">\(dataset.summary.retainedItems)</b> · open findings: "
            + "<b data-figure=\"openFindings\">\(dataset.findings.items.count)</b>. On time counts requests completed by "
            + "every deadline among those completed or past their deadline.</p>\n" + appleRevocationLine(dataset)
            + "</section>\n"
        return html
    }

    private static func swatch(_ type: String) -> String {
        "<span class=\"swatch\" style=\"background:\(ReportChartPalette.colour(for: type))\"></span>"
    }

    private static func eventLegend() -> String {
        ReportAssembler.chartedEventTypes.map { "\(swatch($0.canonicalName))\(HTMLText.escape($0.canonicalName))" }
            .joined(separator: " ")
    }

    private static func table(_ headers: [String], _ rows: [[String]], empty: String) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(HTMLText.escape(empty))</p>\n" }
        var html = "<table>\n<thead><tr>"
        html += headers.map { "<th>\(HTMLText.escape($0))</th>" }.joined()
        html += "</tr></thead>\n<tbody>\n"
        for row in rows {
            html += "<tr>" + row.map { "<td>\(HTMLText.escape($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    private static func findingsSection(_ dataset: ReportDataset) -> String {
        let findings = dataset.findings
        var html = "<section>\n<h2>Open findings of the last reconcile</h2>\n"
        guard let lastRun = findings.lastRunAt else {
            return html + "<p class=\"empty\">No reconcile run is recorded for this app.</p>\n</section>\n"
        }
        let counts = ["critical", "warning", "info"].map { severity in
            "\(dataset.summary.findingsBySeverity[severity] ?? 0) \(severity)"
        }
        html += "<p class=\"meta\">Run at \(HTMLText.escape(lastRun.iso8601)): \(counts.joined(separator: ", ")).</p>\n"
        html += table(
            ["Severity", "Code", "Subject", "Detail", "Window"],
            findings.items.map { item in
                let window = item.windowFrom.map { from in "\(from.iso8601) to \(item.windowTo?.iso8601 ?? "now")" }
                return [item.severity, item.code, item.pseudonym ?? "", item.detail, window ?? ""]
            }, empty: "The last reconcile found nothing.")
        return html + "</section>\n"
    }

    private static func retainedSection(_ dataset: ReportDataset) -> String {
        let rows = dataset.subjects.flatMap { row in
            row.retained.map { [row.pseudonym, row.eventType, $0.category, $0.basis, $0.purgeAt.iso8601, $0.status] }
        }
        return "<section>\n<h2>Retained items</h2>\n<p class=\"meta\">Categories kept after deletion because "
            + "another law requires it, until their purge date.</p>\n"
            + table(
                ["Subject", "Event", "Category", "Legal basis", "Purge date", "Status"], rows,
                empty: "Nothing is retained.") + "</section>\n"
    }

    private static func remainingCopiesSection(_ dataset: ReportDataset) -> String {
        let rows = dataset.subjects.compactMap { row -> [String]? in
            guard let copies = row.remainingCopies else { return nil }
            return [
                row.pseudonym, row.eventType, copies.backupsBeyondUseBy?.iso8601 ?? "not yet known",
                copies.masterKey.map { key in
                    key.retiredAt.map { "\(key.id), rotated away \($0.iso8601)" }
                        ?? key.rotationDueBy.map { "\(key.id), rotation due by \($0.iso8601)" } ?? "\(key.id), in force"
                } ?? "", copies.statement,
            ]
        }
        return "<section>\n<h2>Remaining copies</h2>\n<p class=\"meta\">By when every backup copy of each "
            + "request's erased data is beyond use (the operator's stated backup retention after each store's "
            + "erasure), and the master key that wrapped the destroyed data key of the service's own copies: once "
            + "it is rotated away, no copy anywhere opens.</p>\n"
            + table(
                ["Subject", "Event", "Backups beyond use by", "Master key", "Statement"], rows,
                empty: "No erasure in this period.") + "</section>\n"
    }

    private static func failedSection(_ dataset: ReportDataset) -> String {
        let rows = dataset.subjects.flatMap { row in
            row.targets.filter { $0.status == "failed" || $0.status == "unverified" }.map { target in
                [
                    row.pseudonym, row.eventType, "\(target.target) (\(target.rule))", target.status,
                    String(target.attempts), target.finishedAt?.iso8601 ?? "", target.errorCode ?? "",
                    target.deadline.iso8601,
                ]
            }
        }
        return "<section>\n<h2>Failed jobs</h2>\n<p class=\"meta\">Targets whose erasure failed after its retries "
            + "or cannot be proven; <code>lifecycle jobs retry ID</code> runs them again.</p>\n"
            + table(
                ["Subject", "Event", "Target", "Status", "Attempts", "Finished", "Error", "Deadline"], rows,
                empty: "No job failed.") + "</section>\n"
    }

    private static func requestsSection(_ dataset: ReportDataset) -> String {
        let rows = dataset.subjects.map { row in
            [
                row.pseudonym, row.eventType, row.source.rawValue, row.eventTime.iso8601, row.receivedAt.iso8601,
                row.policy ?? "", row.deadline?.iso8601 ?? "", row.outcome.rawValue,
                row.onTime.map { $0 ? "yes" : "no" } ?? "", daysText(row.daysToComplete), row.verification.rawValue,
            ]
        }
        return "<section class=\"requests\">\n<h2>Every request</h2>\n"
            + table(
                [
                    "Subject", "Event", "Source", "Event time", "Received", "Policy", "Deadline", "Outcome", "On time",
                    "Days", "Verification",
                ], rows, empty: "No deletion request in this period.") + "</section>\n"
    }

    private static func integritySection(_ dataset: ReportDataset) -> String {
        var html = "<footer>\n<h2>Integrity</h2>\n"
        if let integrity = dataset.integrity {
            html +=
                "<p>Line \(integrity.sequence) of <code>\(HTMLText.escape(integrity.manifest))</code> holds the SHA-256 "
                + "of this file and of its JSON and CSV siblings, chains to the previous line "
                + "(<code>\(HTMLText.escape(integrity.previousManifestLineSHA256))</code>) and is signed with Ed25519 "
                + "key <code>\(HTMLText.escape(integrity.signingKeyID))</code>.</p>\n"
        } else {
            html += "<p>Not yet placed in a manifest.</p>\n"
        }
        html +=
            "<p>Check offline with <code>lifecycle report verify DIR --public-key FILE</code>. Schema "
            + "<code>\(ReportDataset.schema)</code>.</p>\n</footer>\n"
        return html
    }

    static let style = """

        @page { size: A4; margin: 14mm; }
        * { box-sizing: border-box; }
        body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1a1a1a;
          max-width: 1000px; margin: 0 auto; padding: 24px; background: #fff; }
        h1 { font-size: 24px; margin: 0 0 4px; }
        h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 2px solid #e3e3e3; padding-bottom: 4px; }
        .meta { color: #555; margin: 4px 0; }
        .tiles { display: grid; grid-template-columns: repeat(4, 1fr); gap: 8px; margin: 8px 0 14px; }
        .tile { border: 1px solid #d9d9d9; border-radius: 6px; padding: 8px 10px; }
        .tile .value { font-size: 26px; font-weight: 650; }
        .tile .label { color: #555; font-size: 12px; }
        .tile.alert { border-color: #b2182b; background: #fdf0f0; }
        .tile.alert .value { color: #b2182b; }
        table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
        th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #e6e6e6; vertical-align: top; }
        thead th { background: #f4f4f4; font-weight: 600; }
        tr.total td, tr.total th { font-weight: 650; border-top: 2px solid #bbb; }
        td.bad { color: #b2182b; font-weight: 650; }
        .requests td { font-size: 11.5px; overflow-wrap: anywhere; }
        code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; }
        .empty { color: #555; font-style: italic; }
        .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 5px; border-radius: 2px; }
        .legend { color: #444; font-size: 12px; }
        .legend .swatch { margin-left: 10px; }
        .key { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 10px; vertical-align: -1px; }
        .dot-key { background: #4d4d4d; border-radius: 50%; }
        .late-key { background: #b2182b; border-radius: 50%; }
        .median-key { background: #1a1a1a; width: 4px; }
        .p95-key { background: #ef8a62; width: 5px; }
        .deadline-key { border-left: 2px dashed #b2182b; width: 2px; }
        svg.chart { width: 100%; height: auto; display: block; margin: 6px 0; }
        svg .label { font-size: 12px; fill: #1a1a1a; }
        svg .tick, svg .count, svg .unit, svg .note { font-size: 10px; fill: #555; }
        svg .tick { text-anchor: middle; }
        svg .count, svg .unit { text-anchor: end; }
        svg .track { stroke: #ccc; stroke-width: 1; }
        svg .grid { stroke: #eee; stroke-width: 1; }
        svg .axis { stroke: #888; stroke-width: 1; }
        svg .allowed { fill: #e7f3e7; }
        svg .deadline { stroke: #b2182b; stroke-width: 2; stroke-dasharray: 4 3; }
        svg .dot { fill: #4d4d4d; fill-opacity: 0.8; stroke: #fff; stroke-width: 1; }
        svg .dot.late { fill: #b2182b; fill-opacity: 0.9; }
        svg .median { fill: #1a1a1a; }
        svg .p95 { fill: #ef8a62; }
        footer { margin-top: 28px; color: #444; font-size: 12px; }
        @media print {
          body { padding: 0; max-width: none; font-size: 12px; }
          section, footer, tr, svg { break-inside: avoid; }
          .requests { break-inside: auto; }
          .tile.alert, thead th, svg .allowed { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        }

        """

    /// The in-app deletions' Apple token revocations by status, with the TN3194 advice when a token was not
    /// held; nothing when no deletion of the period asked for a revocation.
    private static func appleRevocationLine(_ dataset: ReportDataset) -> String {
        let counts = dataset.summary.appleRevocations
        guard !counts.isEmpty else { return "" }
        let parts = counts.sorted { $0.key < $1.key }.map {
            "\(HTMLText.escape($0.key)): <b data-figure=\"appleRevocations.\(HTMLText.escape($0.key))\">\($0.value)</b>"
        }
        var line = "<p class=\"meta\">Apple token revocations: " + parts.joined(separator: " · ") + "."
        if counts["no-token"] != nil || counts["failed"] != nil {
            line +=
                " Where the service could not revoke, " + HTMLText.escape(ReportAppleRevocation.settingsAdvice) + "."
        }
        return line + "</p>\n"
    }
}
