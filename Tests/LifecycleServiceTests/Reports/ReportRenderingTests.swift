import Foundation
import LifecycleCore
import LifecycleCrypto
import Testing

@testable import LifecycleReports

/// The render stage: fixed dataset and clock in, byte-identical files out; the HTML shows the JSON's figures.
@Suite("Deletion-compliance report rendering")
struct ReportRenderingTests {
    static func row(_ subject: Int, _ type: String) throws -> ReportSubjectRow {
        let pseudonym = ReportFixture.pseudonymizer.pseudonym(
            app: ReportFixture.app, subject: ReportFixture.subjects[subject])
        return try #require(ReportFixture.dataset.subjects.first { $0.pseudonym == pseudonym && $0.eventType == type })
    }

    /// Regression (fuzzing, csv-records): quotes were doubled by String.replacingOccurrences, which compares
    /// Characters, so a quote followed by a combining mark stayed single and ended the field early.
    @Test(
        "a CSV field doubles every quote scalar, combining marks or not",
        arguments: [
            ("a\"\u{0301}b,c", "\"a\"\"\u{0301}b,c\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("plain", "plain"),
            ("\"\u{06DB}", "\"\"\"\u{06DB}\""),
        ])
    func csvFieldQuoting(value: String, written: String) {
        #expect(Array(ReportCSVRenderer.field(value).unicodeScalars) == Array(written.unicodeScalars))
    }

    @Test("the JSON report matches its golden file")
    func jsonGolden() throws {
        try GoldenFile.check("deletion-report.json", ReportJSONRenderer.render(ReportFixture.dataset))
        if GoldenFile.updating {
            // The HTML is not a golden file (its figures are asserted by value) but is kept beside it for review.
            try GoldenFile.check("deletion-report.html", ReportHTMLRenderer.render(ReportFixture.dataset))
        }
    }

    @Test("the CSV report matches its golden file")
    func csvGolden() throws {
        try GoldenFile.check("deletion-report.csv", ReportCSVRenderer.render(ReportFixture.dataset))
    }

    /// The dataset's JSON report in a temporary file, and a manifest line (sequence 3) listing it as
    /// `2026/x.json` with its SHA-256.
    static func jsonReportFile(_ dataset: ReportDataset) throws -> (line: ReportManifestLine, path: String) {
        let json = ReportJSONRenderer.render(dataset)
        let line = ReportManifestLine(
            sequence: 3, app: dataset.app, schema: ReportDataset.schema, period: dataset.period,
            generatedAt: dataset.generatedAt, files: [("2026/x.json", SHA256.hexDigest(json))],
            previousLineSHA256: String(repeating: "0", count: 64), pseudonymKeyID: dataset.pseudonymKeyID,
            signingKeyID: "0011223344556677")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).json")
            .path
        try Data(json).write(to: URL(fileURLWithPath: path))
        return (line, path)
    }

    /// The writer derives a report's log leaves from its dataset; a verifier derives them from the JSON file.
    /// Over rows in every outcome (null deadlines, completion times and on-time flags among them) both agree.
    @Test("the log leaves the writer derives from the dataset are those a verifier derives from the JSON file")
    func logLeavesAgree() throws {
        let dataset = ReportFixture.dataset
        let (line, path) = try Self.jsonReportFile(dataset)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = Array(line.text.utf8)
        let fromDataset = ReportLogEntries(line: line, lineText: text, dataset: dataset)
        // Read back as the verifier and the log's catch-up read it: mapped from the file.
        let fromFile = try ReportLogEntries(line: line, lineText: text, reportFile: path)
        #expect(fromDataset.outcomes.count == dataset.subjects.count)
        #expect(Set(dataset.subjects.map(\.outcome)).count >= 4, "the fixture covers several outcomes")
        #expect(fromDataset.all == fromFile.all)
        #expect(fromDataset.outcomes.map(\.key) == fromFile.outcomes.map(\.key))
    }

    /// Canonical JSON sorts a leaf's members by name; the enum that writes both kinds of leaf keeps them so.
    @Test("a deletion-outcome leaf's members are declared in canonical order, each named as its case")
    func outcomeLeafOrder() {
        let names = ReportLogEntries.OutcomeLeafMember.allCases.map(\.rawValue)
        #expect(names == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        for member in ReportLogEntries.OutcomeLeafMember.allCases {
            #expect(member.name.description == member.rawValue)
        }
    }

    /// A mapped page the file no longer has would raise SIGBUS and end the process (`serve` reads reports back
    /// this way in a catch-up of the log); the mapping is guarded, so the walk refuses with one line instead.
    @Test("a report file truncated while the log's walk reads it is refused with one line, and the process lives")
    func truncatedWhileRead() throws {
        let (line, path) = try Self.jsonReportFile(ReportFixture.dataset)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var rows = 0
        let walked = Result { () throws(ReportLogEntries.Failure) in
            try ReportLogEntries.walk(line: line, lineText: Array(line.text.utf8), reportFile: path) { _, _ in
                rows += 1
                // The first row is parsed: the rest of the file goes away under the mapping.
                if rows == 1 { #expect(truncate(path, 0) == 0) }
                return true
            }
        }
        #expect(rows == 1)
        guard case .failure(let failure) = walked else {
            Issue.record("the walk of a truncated file succeeded")
            return
        }
        #expect(failure.description == "2026/x.json: the file shrank or could not be read while it was read")

        // The mapping itself: every page of a file cut to nothing reads as zeros, and the mapping says so.
        try Data(repeating: UInt8(ascii: "a"), count: 3 * 4096 + 17).write(to: URL(fileURLWithPath: path))
        let file = try #require(MappedReportFile(path: path))
        #expect(!file.faulted)
        #expect(truncate(path, 0) == 0)
        #expect(file.sha256Hex() == SHA256.hexDigest([UInt8](repeating: 0, count: 3 * 4096 + 17)))
        #expect(file.faulted)
    }

    @Test("rendering the same dataset twice gives the same bytes")
    func deterministic() {
        #expect(ReportJSONRenderer.render(ReportFixture.dataset) == ReportJSONRenderer.render(ReportFixture.dataset))
        #expect(ReportHTMLRenderer.render(ReportFixture.dataset) == ReportHTMLRenderer.render(ReportFixture.dataset))
    }

    @Test(
        "each request's outcome follows its jobs' evidence and deadlines",
        arguments: [
            (0, "account-deleted", ReportOutcome.completedWithExceptions, true as Bool?),
            (1, "in-app-deletion", .completed, true),
            (2, "consent-revoked", .completed, false),
            (3, "account-deleted", .overdue, false),
            (4, "in-app-deletion", .failed, nil),
            (5, "consent-revoked", .cancelled, nil),
        ])
    func outcomes(subject: Int, type: String, outcome: ReportOutcome, onTime: Bool?) throws {
        let row = try Self.row(subject, type)
        #expect(row.outcome == outcome)
        #expect(row.onTime == onTime)
    }

    @Test("a duplicate, a sign-in, e-mail changes and events outside the period are not deletion requests")
    func onlyRequestsInPeriod() {
        let dataset = ReportFixture.dataset
        #expect(dataset.subjects.count == 6)
        #expect(dataset.summary.total.received == 6)
        let perDay = Dictionary(uniqueKeysWithValues: dataset.eventsPerDay.map { ($0.day, $0.total) })
        #expect(perDay["2026-11-01"] == 1)  // the duplicate is not counted
        #expect(perDay["2026-11-03"] == 2)  // consent-revoked and email-disabled
        #expect(perDay["2026-11-06"] == 0)  // the sign-in is not charted
        #expect(dataset.eventsPerDay.count == 7)
    }

    @Test("summary statistics use nearest-rank median and p95 and count only decided requests for on-time rate")
    func summaryStatistics() {
        let total = ReportFixture.dataset.summary.total
        // Completed: 1.5, 3 and 6 days: too few for a median (5) or a p95 (20); the sample and the slowest stand.
        #expect(total.medianDaysToComplete == nil && total.p95DaysToComplete == nil)
        #expect(total.daysToCompleteSample == 3 && total.longestDaysToComplete == 6)
        var assembler = ReportFixture.assembler
        assembler.options = ReportOptions(minimumMedianSample: 3, minimumP95Sample: 3)
        let stated = assembler.assemble(ReportFixture.inputs).summary.total
        // Nearest rank over 1.5, 3 and 6: median = 3, p95 = 6.
        #expect(stated.medianDaysToComplete == 3)
        #expect(stated.p95DaysToComplete == 6)
        // Decided: three completed (two on time) and one overdue; the failed one is still within its deadline.
        #expect(total.onTimeRate == 0.5 && total.decided == 4)
        #expect(total.completed == 3 && total.completedWithExceptions == 1 && total.overdue == 1)
        #expect(ReportFixture.dataset.summary.failedJobs == 1)
        #expect(ReportFixture.dataset.summary.retainedItems == 1)
        #expect(ReportFixture.dataset.summary.appleRevocations == ["verified": 1, "no-token": 1])
        #expect(ReportFixture.dataset.summary.findingsBySeverity == ["critical": 1, "warning": 1, "info": 1])
    }

    @Test(
        "a Google RISC purge beside Apple's requests: its row, its finding and byProvider name google in every format")
    func providerPerRequest() throws {
        var inputs = ReportFixture.inputs
        let google = ProviderSubject(
            provider: "google", format: "iss_sub", values: ["https://accounts.google.com/", "7375626A656374"]
        ).accountKey
        let time = ReportFixture.at("2026-11-05T12:00:00Z")
        inputs.events.append(
            ReportEvent(
                subject: google, kind: .accountDeleted, source: "notification", eventTime: time,
                receivedAt: time.adding(milliseconds: 1_250), disposition: .applied))
        inputs.findingRun?.findings.append(
            Finding(code: .retainedAfterDeletion, subject: google, detail: "the app still holds it", window: nil))
        let dataset = ReportFixture.assembler.assemble(inputs)
        let row = try #require(dataset.subjects.first { $0.eventTime == time })
        #expect(row.provider == "google")
        #expect(dataset.subjects.filter { $0.provider == "apple" }.count == 6)
        #expect(dataset.summary.byProvider.map(\.type) == ["apple", "google"])
        #expect(dataset.summary.byProvider.map(\.received) == [6, 1])
        #expect(dataset.summary.byProvider.map(\.pending) == [0, 1])

        let json = try JSONValue.parse(ReportJSONRenderer.render(dataset))
        #expect(json["summary"]?["byProvider"]?.arrayValue?.last?["provider"] == "google")
        #expect(json["summary"]?["byProvider"]?.arrayValue?.last?["type"] == nil)
        #expect(json["subjects"]?.arrayValue?.filter { $0["provider"] == "google" }.count == 1)
        let finding = json["findings"]?["items"]?.arrayValue?.first { $0["code"] == "retained-after-deletion" }
        #expect(finding?["provider"] == "google")
        let csv = String(decoding: ReportCSVRenderer.render(dataset), as: UTF8.self)
        #expect(csv.split(separator: "\r\n").filter { $0.hasSuffix(",google") }.count == 1)
        let html = String(decoding: ReportHTMLRenderer.render(dataset), as: UTF8.self)
        #expect(html.contains("<td data-provider=\"google\" data-figure=\"received\">1</td>"))
        #expect(html.contains("<span data-provider=\"google\"><span class=\"nw\">google</span></span>"))
    }

    /// The text of the element carrying `data-figure="name"` (after `prefix`, when given).
    static func figure(_ html: String, _ name: String, after prefix: String = "") -> String? {
        let marker = prefix + "data-figure=\"\(name)\""
        guard let start = html.range(of: marker) else { return nil }
        guard let open = html[start.upperBound...].firstIndex(of: ">") else { return nil }
        let rest = html[html.index(after: open)...]
        guard let close = rest.firstIndex(of: "<") else { return nil }
        return String(rest[..<close])
    }

    @Test("the HTML shows the summary figures the JSON holds, per type and in total")
    func htmlMatchesJSON() throws {
        let dataset = ReportFixture.dataset
        let html = String(decoding: ReportHTMLRenderer.render(dataset), as: UTF8.self)
        let json = try JSONValue.parse(ReportJSONRenderer.render(dataset))
        let summary = try #require(json["summary"])
        func expected(_ value: JSONValue?, _ name: String) -> String {
            switch (name, value) {
            case ("onTimeRate", .number(let rate)): ReportNumbers.percent(rate)
            case ("onTimeRate", .integer(let rate)): ReportNumbers.percent(Double(rate))
            case (_, .number(let days)): ReportNumbers.days(days)
            case (_, .integer(let count)) where name.hasSuffix("DaysToComplete"): ReportNumbers.days(Double(count))
            case (_, .integer(let count)): String(count)
            default: "n/a"
            }
        }
        let names = [
            "received", "completed", "pending", "overdue", "failed", "onTimeRate", "medianDaysToComplete",
            "p95DaysToComplete",
        ]
        for name in names + ["completedWithExceptions", "cancelled", "longestDaysToComplete"] {
            #expect(Self.figure(html, name) == expected(summary["total"]?[name], name), "tile \(name)")
        }
        for type in try #require(summary["byType"]?.arrayValue) {
            let typeName = try #require(type["type"]?.stringValue)
            let rowStart = try #require(html.range(of: "data-type=\"\(typeName)\""))
            let row = String(html[rowStart.lowerBound...].prefix { $0 != "\n" })
            for name in names + ["completedWithExceptions", "cancelled"] {
                #expect(Self.figure(row, name) == expected(type[name], name), "\(typeName) \(name)")
            }
        }
        #expect(Self.figure(html, "failedJobs") == summary["failedJobs"]?.integerValue.map { String($0) })
        #expect(Self.figure(html, "retainedItems") == summary["retainedItems"]?.integerValue.map { String($0) })
        #expect(Self.figure(html, "openFindings") == summary["openFindings"]?["total"]?.integerValue.map { String($0) })
        #expect(summary["total"]?["onTimeRate"] == .number(0.5))
        #expect(html.contains("50.0%"))
    }

    @Test("the HTML is self-contained: no script, no external resource, charts inline")
    func htmlSelfContained() {
        let html = String(decoding: ReportHTMLRenderer.render(ReportFixture.dataset), as: UTF8.self).lowercased()
        for forbidden in ["<script", "src=", "href=", "url(", "@import", "<link", "<iframe", "<img", "on" + "load="] {
            #expect(!html.contains(forbidden), "contains \(forbidden)")
        }
        #expect(html.components(separatedBy: "<svg").count - 1 == 2)
        #expect(html.contains("<style>"))
    }

    @Test("everything shown is HTML-escaped")
    func htmlEscapes() {
        let html = String(decoding: ReportHTMLRenderer.render(ReportFixture.dataset), as: UTF8.self)
        #expect(html.contains("&lt;check the load balancer &amp; TLS&gt;"))
        #expect(!html.contains("<check the load balancer"))
        #expect(HTMLText.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }

    @Test(
        "CSV fields are quoted as RFC 4180 requires",
        arguments: [
            ("plain", "plain"), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\nlines", "\"two\nlines\""),
            ("cr\rhere", "\"cr\rhere\""), ("", ""),
        ])
    func csvQuoting(value: String, field: String) {
        #expect(ReportCSVRenderer.field(value) == field)
    }

    @Test("CSV lines end in CRLF and every row has every column")
    func csvShape() throws {
        let text = String(decoding: ReportCSVRenderer.render(ReportFixture.dataset), as: UTF8.self)
        #expect(text.hasSuffix("\r\n"))
        let lines = text.components(separatedBy: "\r\n").dropLast()
        #expect(lines.count == ReportFixture.dataset.subjects.count + 1)
        #expect(lines.first == ReportCSVRenderer.columns.joined(separator: ","))
        // The retention basis holds a comma, so its field is quoted.
        #expect(text.contains("\"payment-records kept under Electronic Commerce Act, Art. 6 until"))
    }
}
