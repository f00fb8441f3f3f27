import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleReports

/// The HTML report as a browser lays it out, in headless Chromium, offline: on a 1200 px wide screen and
/// printed on A4. A script the test adds to a copy of the page (the report itself has none) measures the
/// laid-out page: every section is present, no cell's text is wider than the cell, no table or token sticks
/// out of the page, and no pseudonym, instant or term is broken across lines. The print is then checked as
/// an auditor receives it: `--print-to-pdf`, `pdftoppm` renders the pages and `pdftotext` must find every
/// section heading and every pseudonym and instant whole. Skipped, saying why, when `chromium` or
/// `poppler-utils` is not installed (`make test` installs both).
@Suite("Deletion-compliance report in headless Chromium")
struct ReportChromiumTests {
    static let chromium = SystemTool.find("chromium") ?? SystemTool.find("chromium-browser")
    static let pdftoppm = SystemTool.find("pdftoppm")
    static let pdftotext = SystemTool.find("pdftotext")

    /// Every section the page must show, by its heading.
    static let sections = [
        "At a glance", "Days from event to completed erasure, against the deadline", "Events per day by type",
        "Everything received", "Open findings of the last reconcile", "Retained items", "Remaining copies",
        "Failed jobs", "Every request", "Glossary", "Integrity",
    ]

    /// A4 is 210 mm wide; the page's `@page` margin is 14 mm each side: 182 mm of CSS pixels at 96 per inch.
    static let a4ContentWidth = Int((182.0 / 25.4 * 96).rounded(.down))

    /// Measures the laid-out page into `<pre id="measure">` as JSON. With `#print` in the URL the page's
    /// `@media print` rules are applied to the screen first, so the layout is the printed one.
    static let measurement = """
        <script>
        window.addEventListener('load', () => {
          if (location.hash === '#print') {
            for (const sheet of document.styleSheets) for (const rule of sheet.cssRules)
              if (rule.media && rule.media.mediaText === 'print') rule.media.mediaText = 'all';
          }
          const out = {overflowing: [], broken: [], outside: [], headings: [], cells: 0, tokens: 0};
          const page = document.body.getBoundingClientRect();
          const right = Math.max(page.right, window.innerWidth);
          for (const cell of document.querySelectorAll('td, th')) {
            out.cells++;
            if (cell.scrollWidth > cell.clientWidth + 1)
              out.overflowing.push(cell.textContent.slice(0, 80) + ' (' + cell.scrollWidth + ' > ' + cell.clientWidth + ')');
          }
          for (const token of document.querySelectorAll('.nw')) {
            out.tokens++;
            if (token.getClientRects().length > 1) out.broken.push(token.textContent);
            const box = token.getBoundingClientRect();
            const cell = token.closest('td, th');
            const limit = cell ? cell.getBoundingClientRect().right : right;
            if (box.right > limit + 1) out.outside.push(token.textContent + ' (' + box.right + ' > ' + limit + ')');
          }
          for (const table of document.querySelectorAll('table, svg')) {
            const box = table.getBoundingClientRect();
            if (box.right > window.innerWidth + 1) out.outside.push(table.tagName + ' ends at ' + box.right);
          }
          out.headings = [...document.querySelectorAll('h2')].map(h => h.textContent);
          out.scrollWidth = document.documentElement.scrollWidth;
          out.viewport = window.innerWidth;
          const pre = document.createElement('pre');
          pre.id = 'measure';
          pre.textContent = 'MEASURE' + JSON.stringify(out) + 'END';
          document.body.appendChild(pre);
        });
        </script>
        """

    static var common: [String] {
        [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--proxy-server=127.0.0.1:9", "--force-device-scale-factor=1",
        ]
    }

    /// The measured layout of `page` at `width` CSS pixels (`print`: with the print rules applied).
    static func measure(_ chromium: SystemTool, page: String, width: Int, print: Bool, profile: String) async throws
        -> JSONValue
    {
        let run = try await chromium.run(
            common + [
                "--user-data-dir=\(profile)", "--window-size=\(width),1400", "--virtual-time-budget=5000",
                "--dump-dom", "file://\(page)\(print ? "#print" : "")",
            ], timeout: .seconds(90))
        #expect(run.status == 0, "\(run.output.suffix(2000))")
        // The script's own text holds the marker too; the measurement is the `<pre>` it appended.
        let start = try #require(
            run.output.range(of: "<pre id=\"measure\">MEASURE"), "no measurement in \(run.output.suffix(2000))")
        let end = try #require(run.output.range(of: "END</pre>", range: start.upperBound..<run.output.endIndex))
        let json = String(run.output[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&amp;", with: "&")
        return try JSONValue.parse(Array(json.utf8))
    }

    static func expectLaidOut(_ measured: JSONValue, _ label: String) {
        let headings = measured["headings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        for section in sections { #expect(headings.contains(section), "\(label): section \(section) missing") }
        #expect(measured["cells"]?.integerValue ?? 0 > 50, "\(label): \(measured)")
        #expect(measured["tokens"]?.integerValue ?? 0 > 50, "\(label): \(measured)")
        #expect(measured["overflowing"]?.arrayValue == [], "\(label): text wider than its cell")
        #expect(measured["broken"]?.arrayValue == [], "\(label): a token broken across lines")
        #expect(measured["outside"]?.arrayValue == [], "\(label): something sticks out of its cell or the page")
        #expect(
            (measured["scrollWidth"]?.integerValue ?? .max) <= (measured["viewport"]?.integerValue ?? 0),
            "\(label): the page scrolls sideways")
    }

    @Test(
        "at 1200 px and at A4 every section is present, no text overflows its cell and no pseudonym, instant or term breaks",
        .enabled(if: chromium != nil, "chromium is not installed (apt-get install -y chromium)"))
    func layout() async throws {
        let chromium = try #require(Self.chromium)
        let directory = try TemporaryDirectory()
        let page = directory.file("report.html")
        let html = String(decoding: ReportHTMLRenderer.render(ReportFixture.dataset), as: UTF8.self)
        try Data(html.replacingOccurrences(of: "</body>", with: Self.measurement + "</body>").utf8).write(
            to: URL(fileURLWithPath: page))
        let screen = try await Self.measure(
            chromium, page: page, width: 1200, print: false, profile: directory.file("profile-screen"))
        Self.expectLaidOut(screen, "1200 px")
        let printed = try await Self.measure(
            chromium, page: page, width: Self.a4ContentWidth, print: true, profile: directory.file("profile-print"))
        Self.expectLaidOut(printed, "A4")
    }

    @Test(
        "printed to A4 PDF, the pages render and their text holds every section, pseudonym and instant unbroken",
        .enabled(if: chromium != nil, "chromium is not installed (apt-get install -y chromium)"),
        .enabled(if: pdftoppm != nil && pdftotext != nil, "poppler-utils is not installed (pdftoppm, pdftotext)"))
    func printsOnA4() async throws {
        let chromium = try #require(Self.chromium)
        let directory = try TemporaryDirectory()
        let page = directory.file("report.html")
        let pdf = directory.file("report.pdf")
        try Data(ReportHTMLRenderer.render(ReportFixture.dataset)).write(to: URL(fileURLWithPath: page))
        let printed = try await chromium.run(
            Self.common + [
                "--user-data-dir=\(directory.file("profile"))", "--no-pdf-header-footer", "--print-to-pdf=\(pdf)",
                "file://\(page)",
            ], timeout: .seconds(90))
        #expect(printed.status == 0, "\(printed.output.suffix(2000))")
        let bytes = try #require(FileManager.default.contents(atPath: pdf), "no PDF written")
        #expect(bytes.starts(with: Array("%PDF-".utf8)))

        let rendered = try await #require(Self.pdftoppm).run(["-r", "40", "-png", pdf, directory.file("page")])
        #expect(rendered.status == 0, "\(rendered.output)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("page") && $0.hasSuffix(".png")
        }
        #expect(pages.count >= 2, "\(pages)")
        // The pages are A4 (pdfinfo names the size), not Letter or one tall screen-sized page.
        let size = try await #require(SystemTool.find("pdfinfo")).run([pdf])
        #expect(size.output.contains("(A4)"), "\(size.output)")

        let text = try await #require(Self.pdftotext).run([pdf, "-"])
        #expect(text.status == 0)
        for section in Self.sections { #expect(text.output.contains(section), "printed page lacks \(section)") }
        for row in ReportFixture.dataset.subjects {
            #expect(text.output.contains(row.pseudonym), "\(row.pseudonym) is broken or missing in print")
            #expect(text.output.contains(row.eventTime.iso8601), "\(row.eventTime.iso8601) broken in print")
        }
        #expect(text.output.contains("completed-with-exceptions"))
    }

    @Test(
        "headless Chromium renders the HTML report to a PNG screenshot at 1200 px without network access",
        .enabled(if: chromium != nil, "chromium is not installed (apt-get install -y chromium)"))
    func screenshot() async throws {
        let chromium = try #require(Self.chromium)
        let directory = try TemporaryDirectory()
        let page = directory.file("report.html")
        let screenshot = directory.file("report.png")
        try Data(ReportHTMLRenderer.render(ReportFixture.dataset)).write(to: URL(fileURLWithPath: page))
        let run = try await chromium.run(
            Self.common + [
                "--user-data-dir=\(directory.file("profile"))", "--window-size=1200,3400",
                "--screenshot=\(screenshot)", "file://\(page)",
            ], timeout: .seconds(90))
        #expect(run.status == 0, "\(run.output.suffix(2000))")
        let png = try #require(FileManager.default.contents(atPath: screenshot), "no screenshot written")
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // A blank page compresses to a few kilobytes; tables, text and charts do not.
        #expect(png.count > 50_000)
        if let target = ProcessInfo.processInfo.environment["LIFECYCLE_REPORT_SCREENSHOT"] {
            try png.write(to: URL(fileURLWithPath: target))
        }
    }
}
