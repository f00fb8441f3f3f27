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
        // The rows are read once, here, for every section that needs them.
        let rows = ReportPageRows(dataset)
        let period = "\(ReportPeriod.dayName(dataset.period.from)) to \(ReportPeriod.dayName(dataset.coveredUntil))"
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
            <p class="meta">App <b>\(e(dataset.app))</b> · \(periodText(dataset)) · generated \(token(dataset.generatedAt.iso8601))</p>
            <p class="meta">\(pseudonymText(dataset))</p>
            </header>

            """
        html += summarySection(dataset)
        html += """
            <section>
            <h2>Days from event to completed erasure, against the deadline</h2>
            \(ReportCharts.daysToErasure(dataset, rows))<p class="legend"><span class="key dot-key"></span> \(dataset.pageListsEveryRequest ? "one completed request" : "completed requests (one dot per position)")
            <span class="key late-key"></span> completed late <span class="key median-key"></span> median
            <span class="key p95-key"></span> 95th percentile <span class="key deadline-key"></span> deadline
            (shaded: time allowed)</p>
            </section>
            <section>
            <h2>Events per day by type</h2>
            \(ReportCharts.eventsPerDay(dataset))<p class="legend">\(eventLegend())</p>
            </section>

            """
        html += inputsSection(dataset)
        html += findingsSection(dataset)
        html += retainedSection(dataset, rows)
        html += remainingCopiesSection(dataset, rows)
        html += failedSection(dataset, rows)
        html += requestsSection(dataset, rows)
        html += glossarySection(dataset)
        html += integritySection(dataset)
        return html + "</body>\n</html>\n"
    }

    private static func figure(_ name: String, _ value: String, _ label: String, alert: Bool = false) -> String {
        "<div class=\"tile\(alert ? " alert" : "")\"><div class=\"value\" data-figure=\"\(name)\">"
            + "\(HTMLText.escape(value))</div><div class=\"label\">\(HTMLText.escape(label))</div></div>\n"
    }

    /// A string that must never break across lines (a pseudonym, an instant, a term): kept on one line.
    static func token(_ text: String) -> String { "<span class=\"nw\">\(HTMLText.escape(text))</span>" }

    /// The period as covered: a report cannot speak of a time after it was generated, so a period still
    /// running is shown up to the generation time, its configured end said alongside.
    static func periodText(_ dataset: ReportDataset) -> String {
        var text =
            "period <b>\(token(dataset.period.from.iso8601))</b> to <b>\(token(dataset.coveredUntil.iso8601))</b>"
        if dataset.coveredUntil < dataset.period.to {
            text +=
                " (UTC; the period runs to \(token(dataset.period.to.iso8601)): it was still running when this "
                + "report was generated, so it covers the period up to the generation time)"
        } else {
            text += " (UTC, end excluded)"
        }
        return text
    }

    /// Which key the pseudonyms are under, and whether the service's logs, `jobs list` and the admin API
    /// name the same person alike.
    static func pseudonymText(_ dataset: ReportDataset) -> String {
        let e = HTMLText.escape
        var text =
            "Subjects appear as keyed pseudonyms (key <code>\(e(dataset.pseudonymKeyID))</code>); no Apple user "
            + "identifier, e-mail address or token is in this report. "
        if dataset.operationsPseudonymKeyID == dataset.pseudonymKeyID {
            text +=
                "The service's logs, <code>lifecycle jobs list</code> and the admin API use the same key, so a person "
                + "has the same pseudonym there."
        } else {
            text +=
                "The service's logs, <code>lifecycle jobs list</code> and the admin API use another key "
                + "(<code>\(e(dataset.operationsPseudonymKeyID))</code>, <code>pseudonymKeyFile</code>), so the same "
                + "person has another pseudonym there; <code>lifecycle report lookup --app ID --sub SUB</code> prints "
                + "this report's."
        }
        return text
    }

    /// The sample a statistic is over, and why a figure is withheld when the sample is too small.
    static func sampleText(_ count: Int, minimum: Int, noun: String) -> String {
        count == 0
            ? "none \(noun)" : count < minimum ? "n = \(count) \(noun), fewer than \(minimum)" : "n = \(count) \(noun)"
    }

    static func daysText(_ value: Double?) -> String { value.map(ReportNumbers.days) ?? "n/a" }
    static func rateText(_ value: Double?) -> String { value.map(ReportNumbers.percent) ?? "n/a" }

    private static func summarySection(_ dataset: ReportDataset) -> String {
        let total = dataset.summary.total
        var html = "<section>\n<h2>At a glance</h2>\n<div class=\"tiles\">\n"
        html += figure("received", String(total.received), "requests received")
        html += figure("completed", String(total.completed), "completed (with or without exceptions)")
        html += figure("completedWithExceptions", String(total.completedWithExceptions), "completed with exceptions")
        html += figure("cancelled", String(total.cancelled), "cancelled by a re-link")
        html += figure("pending", String(total.pending), "pending, within deadline")
        html += figure("overdue", String(total.overdue), "overdue", alert: total.overdue > 0)
        html += figure("failed", String(total.failed), "failed, within deadline", alert: total.failed > 0)
        html += figure(
            "onTimeRate", rateText(total.onTimeRate),
            "on time (\(sampleText(total.decided, minimum: 1, noun: "decided")))")
        html += figure(
            "medianDaysToComplete", daysText(total.medianDaysToComplete),
            "median days to erase (\(sampleText(total.daysToCompleteSample, minimum: dataset.minimumMedianSample, noun: "completed")))"
        )
        html += figure(
            "p95DaysToComplete", daysText(total.p95DaysToComplete),
            "95th percentile days (\(sampleText(total.daysToCompleteSample, minimum: dataset.minimumP95Sample, noun: "completed")))"
        )
        html += figure(
            "longestDaysToComplete", daysText(total.longestDaysToComplete),
            "slowest completion, days (\(sampleText(total.daysToCompleteSample, minimum: 1, noun: "completed")))")
        html += "</div>\n<table>\n<thead><tr><th>Event type</th>" + summaryColumns + "</tr></thead>\n<tbody>\n"
        for summary in dataset.summary.byType + [dataset.summary.total] {
            let type = summary.type
            let name = type == "all" ? "<th>All types</th>" : "<th>\(swatch(type))\(HTMLText.escape(type))</th>"
            html +=
                "<tr\(type == "all" ? " class=\"total\"" : "")>\(name)"
                + summaryCells(summary, key: "data-type=\"\(HTMLText.escape(type))\"") + "</tr>\n"
        }
        html += "</tbody>\n</table>\n"
        if !dataset.summary.byProvider.isEmpty {
            html += "<table class=\"providers\">\n<thead><tr><th>Identity provider</th>" + summaryColumns
            html += "</tr></thead>\n<tbody>\n"
            for summary in dataset.summary.byProvider {
                let provider = HTMLText.escape(summary.type)
                html +=
                    "<tr><th>\(token(summary.type))</th>"
                    + summaryCells(summary, key: "data-provider=\"\(provider)\"") + "</tr>\n"
            }
            html += "</tbody>\n</table>\n"
        }
        html +=
            "<p class=\"meta\">Failed jobs: <b data-figure=\"failedJobs\">\(dataset.summary.failedJobs)</b> · "
            + "retained items: <b data-figure=\"retainedItems\">\(dataset.summary.retainedItems)</b> · open findings: "
            + "<b data-figure=\"openFindings\">\(dataset.findings.items.count)</b>. On time counts requests completed by "
            + "every deadline among those completed or past their deadline (n: how many requests a figure is over). "
            + "A median needs at least \(dataset.minimumMedianSample) completion times and a 95th percentile \(dataset.minimumP95Sample); with fewer, "
            + "the figure reads n/a and the slowest completion stands in. Terms: see the glossary below.</p>\n"
            + appleRevocationLine(dataset)
            + "</section>\n"
        return html
    }

    /// The column heads of a summary table after its first (event type or provider).
    private static let summaryColumns =
        "<th>Received</th><th>Completed</th><th>with exceptions</th><th>Pending</th><th>Overdue</th><th>Failed</th>"
        + "<th>Cancelled</th><th>On time</th><th>Median days</th><th>p95 days</th><th>Deadline days</th>"

    /// One summary row's figures; `key` (an attribute, escaped) on the first cell says whose they are.
    private static func summaryCells(_ summary: ReportTypeSummary, key: String) -> String {
        [
            "<td \(key) data-figure=\"received\">\(summary.received)</td>",
            "<td data-figure=\"completed\">\(summary.completed)</td>",
            "<td data-figure=\"completedWithExceptions\">\(summary.completedWithExceptions)</td>",
            "<td data-figure=\"pending\">\(summary.pending)</td>",
            "<td data-figure=\"overdue\"\(summary.overdue > 0 ? " class=\"bad\"" : "")>\(summary.overdue)</td>",
            "<td data-figure=\"failed\"\(summary.failed > 0 ? " class=\"bad\"" : "")>\(summary.failed)</td>",
            "<td data-figure=\"cancelled\">\(summary.cancelled)</td>",
            "<td><span data-figure=\"onTimeRate\">\(rateText(summary.onTimeRate))</span> "
                + "<span class=\"n\">n=\(summary.decided)</span></td>",
            "<td><span data-figure=\"medianDaysToComplete\">\(daysText(summary.medianDaysToComplete))</span> "
                + "<span class=\"n\">n=\(summary.daysToCompleteSample)</span></td>",
            "<td data-figure=\"p95DaysToComplete\">\(daysText(summary.p95DaysToComplete))</td>",
            "<td>\(daysText(summary.deadlineDays))</td>",
        ].joined()
    }

    private static func swatch(_ type: String) -> String {
        "<span class=\"swatch\" style=\"background:\(ReportChartPalette.colour(for: type))\"></span>"
    }

    private static func eventLegend() -> String {
        ReportAssembler.chartedEventTypes.map { "\(swatch($0.canonicalName))\(HTMLText.escape($0.canonicalName))" }
            .joined(separator: " ")
    }

    /// A table whose cells are HTML already escaped (``HTMLText/escape`` or ``token(_:)``).
    private static func table(_ headers: [String], _ rows: [[String]], empty: String) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(HTMLText.escape(empty))</p>\n" }
        var html = "<table>\n<thead><tr>"
        html += headers.map { "<th>\(HTMLText.escape($0))</th>" }.joined()
        html += "</tr></thead>\n<tbody>\n"
        for row in rows {
            html += "<tr>" + row.map { "<td>\($0)</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// A pseudonym, in the monospace face and never broken.
    static func subject(_ pseudonym: String) -> String {
        "<span class=\"nw pseudonym\">\(HTMLText.escape(pseudonym))</span>"
    }

    private static func inputsSection(_ dataset: ReportDataset) -> String {
        let inputs = dataset.inputs
        func count(_ name: String, _ value: Int) -> String { "<b data-figure=\"inputs.\(name)\">\(value)</b>" }
        let unknown = inputs.unknownTypes.sorted { $0.key < $1.key }.map {
            "\(token($0.key)): \(count("unknownTypes.\($0.key)", $0.value))"
        }
        var html = "<section>\n<h2>Everything received</h2>\n"
        html +=
            "<p class=\"meta\">Notifications from Apple with event time in the period: \(count("notifications", inputs.notifications)) "
            + "(every type). Account inputs (notifications, in-app deletions, sign-ins, reconciler discoveries): "
            + "applied \(count("applied", inputs.applied)); duplicates \(count("duplicate", inputs.duplicate)) and "
            + "out of order (stale) \(count("stale", inputs.stale)), recorded and changing nothing; ignored "
            + "\(count("ignored", inputs.ignored)), recorded and changing nothing because the account was already "
            + "deleted. Notifications of types the service does not know: "
            + "<b data-figure=\"inputs.unknown\">\(inputs.unknown)</b>"
            + (unknown.isEmpty ? "" : " (" + unknown.joined(separator: ", ") + ")")
            + ", stored, answered 200 and applied to nothing (nothing was dropped unseen).</p>\n"
        return html + "</section>\n"
    }

    private static func findingsSection(_ dataset: ReportDataset) -> String {
        let e = HTMLText.escape
        let findings = dataset.findings
        var html = "<section>\n<h2>Open findings of the last reconcile</h2>\n"
        guard let lastRun = findings.lastRunAt else {
            return html + "<p class=\"empty\">No reconcile run is recorded for this app.</p>\n</section>\n"
        }
        let counts = ["critical", "warning", "info"].map { severity in
            "\(dataset.summary.findingsBySeverity[severity] ?? 0) \(severity)"
        }
        html += "<p class=\"meta\">Run at \(token(lastRun.iso8601)): \(counts.joined(separator: ", ")).</p>\n"
        // What the run compared, as it recorded it: without a records source nothing is compared with the app's
        // rows, and an empty list must not read as records that agree.
        switch findings.recordsCompared {
        case true?:
            html +=
                "<p class=\"meta\">It compared \(findings.recordsRead.map { "\($0)" } ?? "the") records of the app "
                + "with the service's accounts.</p>\n"
        case false?:
            html +=
                "<p class=\"meta\">This app has no records source (<code>apps[].records</code>): nothing was "
                + "compared with the app's own records; the service's own accounts were checked (erasure jobs, "
                + "credentials, revocations), with notification gaps and recycled identifiers.</p>\n"
        case nil:
            break
        }
        html += table(
            ["Severity", "Code, subject and provider", "Detail", "Window"],
            findings.items.map { item in
                let window = item.windowFrom.map { from in
                    "\(token(from.iso8601)) to \(item.windowTo.map { token($0.iso8601) } ?? "now")"
                }
                return [
                    e(item.severity),
                    token(item.code) + (item.pseudonym.map { "<br>" + subject($0) } ?? "")
                        + (item.provider.map { "<br><span class=\"label\">provider</span> " + token($0) } ?? ""),
                    e(item.detail), window ?? "",
                ]
            }, empty: "The last reconcile left no finding open.")
        return html + "</section>\n"
    }

    private static func retainedSection(_ dataset: ReportDataset, _ page: ReportPageRows) -> String {
        let e = HTMLText.escape
        guard dataset.pageListsEveryRequest else { return retainedTotalsSection(dataset, page) }
        let rows = page.all.flatMap { row in
            row.retained.map {
                [
                    subject(row.pseudonym) + "<br>" + token(row.eventType), token($0.category), e($0.basis),
                    token($0.purgeAt.iso8601), token($0.status),
                ]
            }
        }
        return "<section>\n<h2>Retained items</h2>\n<p class=\"meta\">Categories kept after deletion because "
            + "another law requires it, until their purge date: what makes a request completed with exceptions.</p>\n"
            + table(
                ["Subject and event", "Category", "Legal basis", "Purge date", "Status"], rows,
                empty: "Nothing is retained.") + "</section>\n"
    }

    /// The retained items of a period with more requests than the page lists: one line per category, legal
    /// basis and status, with how many and the purge dates they span.
    private static func retainedTotalsSection(_ dataset: ReportDataset, _ page: ReportPageRows) -> String {
        let rows = page.retainedOrder.map { group -> [String] in
            let value = page.retained[group] ?? (0, dataset.generatedAt, dataset.generatedAt)
            return [
                token(group.category), HTMLText.escape(group.basis), String(value.count),
                "\(token(value.first.iso8601)) to \(token(value.last.iso8601))", token(group.status),
            ]
        }
        return "<section>\n<h2>Retained items</h2>\n<p class=\"meta\">Categories kept after deletion because "
            + "another law requires it, until their purge date: what makes a request completed with exceptions. "
            + "Summed up by category, legal basis and status; \(fullDetailText)</p>\n"
            + table(
                ["Category", "Legal basis", "Items", "Purge dates", "Status"], rows, empty: "Nothing is retained.")
            + "</section>\n"
    }

    /// The remaining copies of a period with more requests than the page lists: how many requests have a
    /// bound, the latest date by which every backup copy is beyond use, and the master keys of their
    /// destroyed data keys.
    private static func remainingCopiesTotalsSection(_ page: ReportPageRows) -> String {
        let (bounded, unknown, latest) = (page.bounded, page.unknownBounds, page.latestBound)
        var html = "<section>\n<h2>Remaining copies</h2>\n"
        guard bounded > 0 else { return html + "<p class=\"empty\">No erasure in this period.</p>\n</section>\n" }
        html +=
            "<p class=\"meta\">\(bounded) requests have a bound on remaining copies. Every backup copy of their erased "
            + "data is beyond use by <b>\(latest.map { token($0.iso8601) } ?? "a date not yet known")</b> at the latest"
            + (unknown > 0
                ? " of those whose erasure finished; for \(unknown) it is not yet known (not erased yet)" : "")
            + ". Per request, the bounds are in the CSV and JSON files. \(fullDetailText)</p>\n"
        let rows = page.masterKeys.sorted { $0.key < $1.key }.map {
            [token($0.key), String($0.value.count), masterKeyState($0.value.key)]
        }
        return html
            + table(
                ["Master key of the destroyed data keys", "Requests", "State"], rows,
                empty: "No data key of the service's own copies was destroyed.") + "</section>\n"
    }

    /// Whether a master key still opens backups: rotated away when, due by when, or in force.
    private static func masterKeyState(_ key: ReportMasterKeyBound) -> String {
        key.retiredAt.map { "rotated away \(token($0.iso8601))" }
            ?? key.rotationDueBy.map { "rotation due by \(token($0.iso8601))" } ?? "in force"
    }

    private static func remainingCopiesSection(_ dataset: ReportDataset, _ page: ReportPageRows) -> String {
        let e = HTMLText.escape
        guard dataset.pageListsEveryRequest else { return remainingCopiesTotalsSection(page) }
        let rows = page.all.compactMap { row -> [String]? in
            guard let copies = row.remainingCopies else { return nil }
            let backups =
                "<div><span class=\"label\">backups beyond use by</span> "
                + (copies.backupsBeyondUseBy.map { token($0.iso8601) } ?? "not yet known") + "</div>"
            let key =
                copies.masterKey.map { key in
                    "<div><span class=\"label\">master key</span> \(token(key.id)), \(masterKeyState(key))</div>"
                } ?? ""
            return [subject(row.pseudonym) + "<br>" + token(row.eventType), backups + key, e(copies.statement)]
        }
        return "<section>\n<h2>Remaining copies</h2>\n<p class=\"meta\">By when every backup copy of each "
            + "request's erased data is beyond use (the operator's stated backup retention after each store's "
            + "erasure), and the master key that wrapped the destroyed data key of the service's own copies: once "
            + "it is rotated away, a copy opens only with a copy of that key kept elsewhere.</p>\n"
            + table(
                ["Subject and event", "Bounds (UTC)", "Statement"], rows,
                empty: "No erasure in this period.") + "</section>\n"
    }

    private static func failedSection(_ dataset: ReportDataset, _ page: ReportPageRows) -> String {
        let total = page.failedCount
        let rows = page.failed.map { failed in
            [
                subject(failed.pseudonym) + "<br>" + token(failed.eventType),
                "\(token(failed.target.target)) \(token("(\(failed.target.rule))"))",
                "\(token(failed.target.status)), \(token("\(failed.target.attempts) attempts"))",
                time("finished", failed.target.finishedAt) + time("deadline", failed.target.deadline),
                failed.target.errorCode.map(token) ?? "",
            ]
        }
        let shown =
            total > rows.count
            ? " The first \(rows.count) of <b data-figure=\"failedTargets\">\(total)</b> by event time. \(fullDetailText)"
            : ""
        return "<section>\n<h2>Failed jobs</h2>\n<p class=\"meta\">Targets whose erasure failed after its retries "
            + "or cannot be proven; <code>lifecycle jobs retry ID</code> runs them again.\(shown)</p>\n"
            + table(
                ["Subject and event", "Target", "Status", "Times (UTC)", "Error"], rows,
                empty: "No job failed.") + "</section>\n"
    }

    /// One line of a request's times: a label, then the instant on one line.
    private static func time(_ label: String, _ value: Instant?) -> String {
        guard let value else { return "" }
        return "<div><span class=\"label\">\(HTMLText.escape(label))</span> \(token(value.iso8601))</div>"
    }

    /// A frozen policy reference `id@version#sha256`: the name on one line, the long hash allowed to wrap
    /// anywhere (it is a token no reader reads across a line).
    private static func policyText(_ reference: String?) -> String {
        guard let reference else { return "none known" }
        guard let hash = reference.firstIndex(of: "#") else { return token(reference) }
        return token(String(reference[..<hash])) + "<br><span class=\"hash\">"
            + HTMLText.escape(String(reference[hash...])) + "</span>"
    }

    /// Where every request is when the page lists only some: the report's sibling files, hashed in the same
    /// manifest line.
    static let fullDetailText =
        "Every request, with its targets, evidence, retained items and remaining copies, is in this report's CSV "
        + "and JSON files (the same name as this page, ending <code>.csv</code> and <code>.json</code>), hashed and "
        + "signed in the same manifest line as this page."

    private static func requestsSection(_ dataset: ReportDataset, _ page: ReportPageRows) -> String {
        let e = HTMLText.escape
        let listed: [ReportSubjectRow]
        var html: String
        if dataset.pageListsEveryRequest {
            listed = page.all
            html = "<section class=\"requests\">\n<h2>Every request</h2>\n"
            html +=
                "<p class=\"meta\">One block per deletion request, by event time: the subject, then where the request "
                + "came from, its times, its answer, what a re-link or a refusal cancelled, and any extension, legal "
                + "hold or denial with its reason.</p>\n"
        } else {
            listed = page.exceptions
            html = "<section class=\"requests\">\n<h2>Exceptions</h2>\n"
            html +=
                "<p class=\"meta\" data-figure=\"exceptions\">This period has <b>\(dataset.subjects.count)</b> "
                + "requests, more than the \(dataset.pageRequestLimit) this page lists one by one, so it lists the "
                + "exceptions: requests completed late or past a deadline, failed or unproven, held, extended or "
                + "denied, <b data-figure=\"exceptionCount\">\(page.exceptionCount)</b> in all"
                + (page.exceptionCount > listed.count ? ", the first \(listed.count) by event time" : "")
                + ". One block per request: the subject, where it came from, its times, its answer, what a refusal "
                + "cancelled, and any extension, legal hold or denial with its reason. \(fullDetailText)</p>\n"
        }
        guard !listed.isEmpty else {
            let none =
                dataset.subjects.isEmpty ? "No deletion request in this period." : "No request is an exception."
            return html + "<p class=\"empty\">\(none)</p>\n</section>\n"
        }
        html += "<table class=\"request-table\">\n<thead><tr>"
        html += [
            "Event, source and provider", "Times (UTC)", "Outcome", "Policy",
            "Cancelled steps, extension, hold, denial",
        ]
        .map { "<th>\($0)</th>" }.joined()
        html += "</tr></thead>\n"
        for row in listed {
            let cancelled =
                row.cancellation.map { cancellation in
                    cancellation.steps.map(token).joined(separator: "<br>") + "<div class=\"label\">"
                        + e(cancellation.reason) + "</div>"
                } ?? "none"
            var decisions = ""
            if let value = row.extension {
                decisions +=
                    "<div><span class=\"label\">extension</span> to \(token(value.newDeadline.iso8601)), told "
                    + "\(token(value.noticeAt.iso8601)): \(e(value.reason))"
                    + (value.recordedAfterDeadline
                        ? "; <span class=\"label\">recorded \(token(value.recordedAt.iso8601)), after the deadline "
                            + "\(token(value.previousDeadline.iso8601)) had passed: judged by it</span>" : "")
                    + "</div>"
            }
            for hold in row.holds {
                decisions +=
                    "<div><span class=\"label\">legal hold</span> \(token(hold.heldAt.iso8601)): \(e(hold.grounds))"
                    + (hold.releasedAt.map { "; released \(token($0.iso8601))" } ?? "; in force") + "</div>"
            }
            if let denial = row.denial {
                decisions +=
                    "<div><span class=\"label\">denied</span> \(token(denial.deniedAt.iso8601)): \(e(denial.basis))</div>"
            }
            let onTimeText =
                row.onTime.map { $0 ? "yes" : "no" } ?? (row.holds.isEmpty ? "not yet decided" : "not claimed: held")
            let outcome = [
                "<div class=\"outcome-\(row.outcome.rawValue)\">\(token(row.outcome.rawValue))</div>",
                "<div><span class=\"label\">answer</span> \(token(row.response.rawValue))</div>",
                "<div><span class=\"label\">on time</span> \(onTimeText)</div>",
                row.daysToComplete.map { "<div><span class=\"label\">days</span> \(daysText($0))</div>" } ?? "",
                "<div><span class=\"label\">verification</span> \(token(row.verification.rawValue))</div>",
            ].joined()
            let times = [
                time("event", row.eventTime), time("received", row.receivedAt),
                time("acknowledged", row.acknowledgedAt), time("deadline", row.deadline),
                time("completed", row.completedAt), time("answered", row.respondedAt),
            ].joined()
            html += "<tbody class=\"request\">\n"
            html += "<tr class=\"subject\"><th colspan=\"5\">\(subject(row.pseudonym))</th></tr>\n"
            html +=
                "<tr><td>\(token(row.eventType))<div><span class=\"label\">from</span> "
                + "\(token(row.source.rawValue))</div><div><span class=\"label\">provider</span> "
                + "<span data-provider=\"\(e(row.provider))\">\(token(row.provider))</span></div></td><td>\(times)</td><td>\(outcome)</td>"
                + "<td>\(policyText(row.policy))</td><td>\(cancelled)\(decisions)</td></tr>\n</tbody>\n"
        }
        return html + "</table>\n</section>\n"
    }

    /// Every term the page uses, defined once, so a compliance officer needs nothing else to read it.
    private static func glossarySection(_ dataset: ReportDataset) -> String {
        let terms: [(String, String)] = [
            (
                "deletion request",
                "An account deletion (Apple's account-deleted notification, or the user deleting the account in the "
                    + "app: in-app-deletion) or a revocation of Sign in with Apple (consent-revoked), applied by the "
                    + "service. Duplicates and out-of-order resends are not second requests."
            ),
            (
                "source",
                "Where the request came from: notification (Apple's, or another identity provider's security event; "
                    + "live or replayed), in-app (the app reported an "
                    + "in-app deletion), reconciler (the nightly reconcile found a revocation whose notification "
                    + "was lost)."
            ),
            (
                "identity provider",
                "Whose account the request is about: apple (Sign in with Apple), or the id the app's configuration "
                    + "gives another provider (e.g. google for Google's Cross-Account Protection, which sends "
                    + "account-purged as a deletion). The summary counts the requests of each."
            ),
            ("event time", "When it happened (Apple's event_time, or the app's); deadlines run from it."),
            (
                "received, acknowledged",
                "When the service received the request, and when it had recorded it durably and so acknowledged "
                    + "it: the answer to Apple or the app is sent only after that commit. A reconciler discovery "
                    + "acknowledges nothing to anyone."
            ),
            (
                "policy",
                "The erasure policy the request's jobs were planned under, as id@version and the SHA-256 of the "
                    + "policy file, frozen when the request arrived."
            ),
            (
                "deadline",
                "The latest date by which the policy's rules require the erasure, counted from the event time."
            ),
            ("completed", "Every erasure job completed with evidence, and nothing is kept."),
            (
                "completed with exceptions (completed-with-exceptions)",
                "Every erasure job completed, but some categories (e.g. payment records) are kept because another "
                    + "law requires it, until their purge date; the law is quoted under Retained items. It counts as "
                    + "completed."
            ),
            ("pending", "Within its deadline and not completed yet (waiting period, running, or no job yet)."),
            ("overdue", "A deadline passed before the erasure completed."),
            (
                "failed",
                "Within its deadline, but a job failed after its retries or ended unverified: an operator must act."
            ),
            (
                "cancelled",
                "The user signed in again before the erasure finished: the re-link cancelled the jobs the policy lets "
                    + "a sign-in cancel (the cancelled steps and the reason are shown per request); what no sign-in "
                    + "undoes (e.g. the Apple tokens) was erased. Not counted as completed."
            ),
            (
                "answer",
                "The response in the terms of a request ledger: complied, complied-in-part (completed with "
                    + "exceptions), withdrawn (cancelled by a re-link), denied (refused, with its basis), open (pending, failed or overdue)."
            ),
            (
                "on time, decided",
                "On time: completed by every deadline. A request is decided once it is completed or past a deadline; "
                    + "the on-time rate is over the decided requests only (n = how many)."
            ),
            (
                "days, median, 95th percentile, slowest",
                "Days from event to the last completed erasure job. Median and 95th percentile by nearest rank "
                    + "(always an observed value), stated only from \(dataset.minimumMedianSample) and "
                    + "\(dataset.minimumP95Sample) completion times on; n = how many completions a figure is over."
            ),
            (
                "verification",
                "What the evidence proves: verified (every step done on a check the service made: a verification "
                    + "query that counted 0, data keys it destroyed), acknowledged (every step done, at least one on "
                    + "the app backend's own word: a webhook's 2xx or its callback), unverified (a target reported "
                    + "success nothing proves), failed, pending, none (no job known)."
            ),
            (
                "retained items",
                "Categories kept after deletion under another law, with the law and the purge date: retained "
                    + "until purged."
            ),
            (
                "remaining copies",
                "Where copies of erased data may remain (backups, the service's sealed copies) and by when none is "
                    + "usable."
            ),
            (
                "findings",
                "Differences the last reconcile found between the app's records and what the service knows; "
                    + "critical, warning and info by how urgently someone must act."
            ),
            (
                "event types",
                "account-deleted, in-app-deletion and consent-revoked are deletion requests; email-disabled and "
                    + "email-enabled: the user switched Apple's relay e-mail forwarding off or on; credentials-invalid: "
                    + "the daily check found the user's Apple credentials invalid (not a request until confirmed, "
                    + "shown as a finding)."
            ),
            (
                "duplicate, stale, ignored, unknown type",
                "A duplicate repeats an input already applied; stale is older than the last applied input of its "
                    + "kind; ignored came after the account was deleted; an unknown type is a notification type the "
                    + "service does not know. All are recorded and change nothing."
            ),
            (
                "extension, denial",
                "An extension is more time to answer a request, allowed by the policy's law (GDPR Art. 12(3): two "
                    + "further months, the person told within the first month; CCPA regulations §7021(b): 45 more "
                    + "days, 90 in all, with notice within the first 45): the new deadline, when the person was "
                    + "told, and why. A denial (answer denied) refuses the request on the basis shown, e.g. a CCPA "
                    + "§1798.105(d) exception: its open erasure steps were cancelled, so its outcome is cancelled."
            ),
            (
                "legal hold",
                "An order or duty to preserve (e.g. litigation) that stops the erasure while it is in force; the "
                    + "erasure runs once it is released. A request that was held claims no on-time answer "
                    + "(on time: not claimed: held) and is left out of the on-time rate and day statistics."
            ),
            (
                "pseudonym",
                "ps_ and 32 hex digits: a keyed hash of the app and Apple's user identifier. The same person has "
                    + "the same pseudonym in every report under one key."
            ),
        ]
        var codes: [String] = []
        for item in dataset.findings.items where !codes.contains(item.code) { codes.append(item.code) }
        let findings = codes.compactMap { code in FindingCode(canonicalName: code).map { (code, $0.meaning + ".") } }
        var html = "<section class=\"glossary\">\n<h2>Glossary</h2>\n<dl>\n"
        for (term, meaning) in terms + findings {
            html += "<dt>\(HTMLText.escape(term))</dt><dd>\(HTMLText.escape(meaning))</dd>\n"
        }
        return html + "</dl>\n</section>\n"
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
        .nw { white-space: nowrap; }
        .pseudonym { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 11px; }
        .hash { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 10.5px; color: #555;
          overflow-wrap: anywhere; }
        .n { color: #666; font-size: 11px; white-space: nowrap; }
        .requests td { font-size: 11.5px; }
        .requests .label, td .label { color: #666; }
        tr.subject th { background: #fafafa; border-top: 2px solid #d5d5d5; font-weight: 600; }
        .outcome-overdue, .outcome-failed { color: #b2182b; font-weight: 650; }
        .glossary dt { font-weight: 650; margin-top: 6px; }
        .glossary dd { margin: 0 0 0 18px; color: #333; }
        code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; overflow-wrap: anywhere; }
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
          table { font-size: 10.5px; }
          th, td { padding: 3px 4px; }
          .pseudonym { font-size: 10px; }
          section, footer, tr, svg, tbody.request { break-inside: avoid; }
          .requests, .glossary { break-inside: auto; }
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
