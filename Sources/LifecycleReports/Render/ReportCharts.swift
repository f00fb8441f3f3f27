import Foundation

/// The inline SVG charts of the HTML report: no script, no external resource, readable in print. Each chart
/// carries a `<title>` and `<desc>` so a screen reader (and a text search) finds the figures it draws.
enum ReportCharts {
    /// Drawing sizes in CSS pixels; the SVG scales to the page width through its `viewBox`.
    static let width = 760.0
    static let labelWidth = 150.0
    static let rightMargin = 20.0

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A round tick step giving about `count` ticks up to `maximum`.
    static func tickStep(maximum: Double, count: Double) -> Double {
        guard maximum > 0 else { return 1 }
        let raw = maximum / count
        let magnitude = pow(10, floor(log10(raw)))
        for multiple in [1.0, 2.0, 5.0, 10.0] where raw <= multiple * magnitude {
            return multiple * magnitude
        }
        return 10 * magnitude
    }

    /// Days to complete per event type: every completed request as a dot, the median and p95 as marks, the
    /// deadline as a red line and the time allowed as a shaded band.
    static func daysToErasure(_ dataset: ReportDataset, _ rows: ReportPageRows) -> String {
        let types = dataset.summary.byType.filter { $0.received > 0 }
        guard !types.isEmpty else { return "<p class=\"empty\">No deletion request in this period.</p>" }
        let maximum = max(
            1,
            (types.compactMap(\.deadlineDays) + types.compactMap(\.p95DaysToComplete)
                + (rows.longest.map { [$0] } ?? []))
                .max() ?? 1)
        let step = tickStep(maximum: maximum * 1.05, count: 8)
        let axisMax = (maximum * 1.05 / step).rounded(.up) * step
        let plotWidth = width - labelWidth - rightMargin
        func x(_ days: Double) -> Double { labelWidth + days / axisMax * plotWidth }
        let rowHeight = 46.0
        let top = 10.0
        let height = top + Double(types.count) * rowHeight + 44
        var svg = """
            <svg class="chart" viewBox="0 0 \(f(width)) \(f(height))" role="img" xmlns="http://www.w3.org/2000/svg">
            <title>Days from event to completed erasure, against the deadline</title>
            <desc>\(HTMLText.escape(types.map(describe).joined(separator: "; ")))</desc>

            """
        for (index, summary) in types.enumerated() {
            let y = top + Double(index) * rowHeight
            let mid = y + rowHeight / 2
            svg += "<text x=\"0\" y=\"\(f(mid + 4))\" class=\"label\">\(HTMLText.escape(summary.type))</text>\n"
            svg +=
                "<line x1=\"\(f(x(0)))\" y1=\"\(f(mid))\" x2=\"\(f(x(axisMax)))\" y2=\"\(f(mid))\" class=\"track\"/>\n"
            if let deadline = summary.deadlineDays {
                svg +=
                    "<rect x=\"\(f(x(0)))\" y=\"\(f(y + 8))\" width=\"\(f(x(deadline) - x(0)))\" "
                    + "height=\"\(f(rowHeight - 16))\" class=\"allowed\"/>\n"
                svg +=
                    "<line x1=\"\(f(x(deadline)))\" y1=\"\(f(y + 4))\" x2=\"\(f(x(deadline)))\" "
                    + "y2=\"\(f(y + rowHeight - 4))\" class=\"deadline\"/>\n"
            }
            if let median = summary.medianDaysToComplete {
                svg +=
                    "<rect x=\"\(f(x(median) - 2))\" y=\"\(f(mid - 13))\" width=\"4\" height=\"26\" class=\"median\"/>\n"
            }
            if let p95 = summary.p95DaysToComplete {
                svg +=
                    "<rect x=\"\(f(x(p95) - 2.5))\" y=\"\(f(mid - 13))\" width=\"5\" height=\"26\" class=\"p95\"/>\n"
            }
            // Above the page's request limit, one dot per pixel column and lateness: a million dots would draw
            // the same band, in a page no browser opens.
            var drawn: Set<Int> = []
            for (days, late) in rows.dots[summary.type] ?? [] {
                if !dataset.pageListsEveryRequest {
                    guard drawn.insert(Int(x(days).rounded()) * 2 + (late ? 1 : 0)).inserted else { continue }
                }
                svg +=
                    "<circle cx=\"\(f(x(days)))\" cy=\"\(f(mid))\" r=\"4.5\" class=\"\(late ? "dot late" : "dot")\"/>\n"
            }
            if summary.completed == 0 {
                svg += "<text x=\"\(f(x(0) + 6))\" y=\"\(f(mid - 8))\" class=\"note\">no completed erasure yet</text>\n"
            }
        }
        let axisY = top + Double(types.count) * rowHeight + 6
        svg +=
            "<line x1=\"\(f(x(0)))\" y1=\"\(f(axisY))\" x2=\"\(f(x(axisMax)))\" y2=\"\(f(axisY))\" class=\"axis\"/>\n"
        var tick = 0.0
        while tick <= axisMax + step / 2 {
            svg +=
                "<line x1=\"\(f(x(tick)))\" y1=\"\(f(axisY))\" x2=\"\(f(x(tick)))\" y2=\"\(f(axisY + 4))\" class=\"axis\"/>"
                + "<text x=\"\(f(x(tick)))\" y=\"\(f(axisY + 16))\" class=\"tick\">\(tickLabel(tick))</text>\n"
            tick += step
        }
        svg += "<text x=\"\(f(x(axisMax)))\" y=\"\(f(axisY + 28))\" class=\"unit\">days after the event</text>\n"
        return svg + "</svg>\n"
    }

    private static func describe(_ summary: ReportTypeSummary) -> String {
        var parts = ["\(summary.type): \(summary.completed) of \(summary.received) completed"]
        if let median = summary.medianDaysToComplete { parts.append("median \(ReportNumbers.days(median)) days") }
        if let p95 = summary.p95DaysToComplete { parts.append("p95 \(ReportNumbers.days(p95)) days") }
        if let deadline = summary.deadlineDays { parts.append("deadline \(ReportNumbers.days(deadline)) days") }
        return parts.joined(separator: ", ")
    }

    private static func tickLabel(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// Events per UTC day, stacked by type.
    static func eventsPerDay(_ dataset: ReportDataset) -> String {
        let days = dataset.eventsPerDay
        guard !days.isEmpty else { return "<p class=\"empty\">The period has no day.</p>" }
        let peak = max(1, days.map(\.total).max() ?? 1)
        let step = max(1, tickStep(maximum: Double(peak), count: 4).rounded(.up))
        let axisMax = (Double(peak) / step).rounded(.up) * step
        let left = 40.0
        let plotWidth = width - left - rightMargin
        let plotHeight = 180.0
        let top = 10.0
        let slot = plotWidth / Double(days.count)
        let barWidth = max(1, slot * 0.8)
        let labelEvery = max(1, Int((Double(days.count) / 10).rounded(.up)))
        let total = days.reduce(0) { $0 + $1.total }
        var svg = """
            <svg class="chart" viewBox="0 0 \(f(width)) \(f(top + plotHeight + 40))" role="img" xmlns="http://www.w3.org/2000/svg">
            <title>Events per day by type</title>
            <desc>\(total) events over \(days.count) days; busiest day \(peak) events</desc>

            """
        func y(_ count: Double) -> Double { top + plotHeight - count / axisMax * plotHeight }
        var tick = 0.0
        while tick <= axisMax {
            svg +=
                "<line x1=\"\(f(left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(width - rightMargin))\" y2=\"\(f(y(tick)))\" "
                + "class=\"grid\"/><text x=\"\(f(left - 6))\" y=\"\(f(y(tick) + 4))\" class=\"count\">"
                + "\(Int(tick))</text>\n"
            tick += step
        }
        for (index, day) in days.enumerated() {
            let x = left + Double(index) * slot + (slot - barWidth) / 2
            var base = 0.0
            for entry in day.counts where entry.count > 0 {
                let next = base + Double(entry.count)
                svg +=
                    "<rect x=\"\(f(x))\" y=\"\(f(y(next)))\" width=\"\(f(barWidth))\" "
                    + "height=\"\(f(y(base) - y(next)))\" fill=\"\(ReportChartPalette.colour(for: entry.type))\">"
                    + "<title>\(HTMLText.escape("\(day.day) \(entry.type): \(entry.count)"))</title></rect>\n"
                base = next
            }
            if index % labelEvery == 0 {
                svg +=
                    "<text x=\"\(f(x + barWidth / 2))\" y=\"\(f(top + plotHeight + 16))\" class=\"tick\">"
                    + "\(HTMLText.escape(String(day.day.dropFirst(5))))</text>\n"
            }
        }
        svg +=
            "<line x1=\"\(f(left))\" y1=\"\(f(y(0)))\" x2=\"\(f(width - rightMargin))\" y2=\"\(f(y(0)))\" "
            + "class=\"axis\"/>\n"
        return svg + "</svg>\n"
    }
}
