import Foundation
import LifecycleCore
import Testing

@testable import LifecycleReports

/// What a compliance officer reading the report relies on: a re-link shows as a cancellation with its steps
/// and reason, everything received is counted, the period never ends after the report was written, every
/// statistic carries its sample size, every term on the page is defined, and the pseudonyms are said to be
/// (or not to be) the ones the operator's tools print.
@Suite("Deletion-compliance report reads right")
struct ReportReadingTests {
    static var html: String { String(decoding: ReportHTMLRenderer.render(ReportFixture.dataset), as: UTF8.self) }

    @Test(
        "a request whose token erasure ran and whose waiting job a re-link cancelled is cancelled, with steps and reason"
    )
    func relinkCancels() throws {
        let row = try ReportRenderingTests.row(5, "consent-revoked")
        #expect(row.outcome == .cancelled, "a completed token erasure does not make the request completed")
        #expect(row.response == .withdrawn)
        #expect(row.completedAt == nil && row.daysToComplete == nil && row.onTime == nil)
        let cancellation = try #require(row.cancellation)
        #expect(cancellation.steps == ["app-db rules[2]", "self rules[2]"])
        #expect(cancellation.reason == "relinked (linked at 2026-11-06T07:15:00.000Z)")
        #expect(cancellation.cancelledAt == ReportFixture.at("2026-11-06T07:15:00Z"))
        #expect(row.respondedAt == cancellation.cancelledAt)
        #expect(row.targets.contains { $0.status == "done" }, "the token step that ran is still listed")
        let total = ReportFixture.dataset.summary.total
        #expect(total.cancelled == 1 && total.completed == 3)

        let json = try JSONValue.parse(ReportJSONRenderer.render(ReportFixture.dataset))
        let entry = try #require(json["subjects"]?.arrayValue?.first { $0["subject"] == .string(row.pseudonym) })
        #expect(entry["cancellation"]?["reason"] == "relinked (linked at 2026-11-06T07:15:00.000Z)")
        #expect(entry["response"] == "withdrawn")
        let csv = String(decoding: ReportCSVRenderer.render(ReportFixture.dataset), as: UTF8.self)
        #expect(csv.contains("app-db rules[2], self rules[2] cancelled at 2026-11-06T07:15:00.000Z: relinked"))
        #expect(Self.html.contains("relinked (linked at 2026-11-06T07:15:00.000Z)"))
    }

    @Test("ignored, stale and duplicate inputs and notifications of unknown types are counted")
    func everythingReceived() throws {
        let inputs = ReportFixture.dataset.inputs
        #expect(inputs.duplicate == 1 && inputs.stale == 1 && inputs.ignored == 1)
        #expect(inputs.unknownTypes == ["account-suspended": 1] && inputs.notifications == 9)
        let json = try JSONValue.parse(ReportJSONRenderer.render(ReportFixture.dataset))
        #expect(json["inputs"]?["unknownTypes"]?["account-suspended"] == .integer(1))
        #expect(json["inputs"]?["ignored"] == .integer(1))
        #expect(ReportRenderingTests.figure(Self.html, "inputs.unknown") == "1")
        #expect(ReportRenderingTests.figure(Self.html, "inputs.ignored") == "1")
        #expect(ReportRenderingTests.figure(Self.html, "inputs.unknownTypes.account-suspended") == "1")
    }

    @Test("a period still running is shown up to the generation time, never past it")
    func periodCapped() throws {
        var inputs = ReportFixture.inputs
        inputs.period = ReportPeriod(from: ReportFixture.period.from, to: ReportFixture.at("2026-11-13T00:00:00Z"))
        let dataset = ReportFixture.assembler.assemble(inputs)
        #expect(dataset.coveredUntil == ReportFixture.generatedAt)
        let html = String(decoding: ReportHTMLRenderer.render(dataset), as: UTF8.self)
        let header = try #require(html.components(separatedBy: "</header>").first)
        #expect(header.contains("to <b><span class=\"nw\">2026-11-12T06:00:00.000Z</span></b>"))
        #expect(header.contains("still running"))
        let title = try #require(
            header.components(separatedBy: "</title>").first?.components(separatedBy: "<title>").last)
        #expect(title == "Deletion compliance: shop, 2026-11-01 to 2026-11-12", "no day after the generation")
        #expect(!header.contains("to <b><span class=\"nw\">2026-11-13"), "the period shown ends at the generation")
        let json = try JSONValue.parse(ReportJSONRenderer.render(dataset))
        #expect(json["period"]?["coveredUntil"] == "2026-11-12T06:00:00.000Z")
        #expect(json["period"]?["to"] == "2026-11-13T00:00:00.000Z")
        // A period that ended before the generation is shown as it is.
        #expect(ReportFixture.dataset.coveredUntil == ReportFixture.period.to)
    }

    @Test("every statistic on the page carries its sample size, and one too small is not stated")
    func statisticsLabelled() throws {
        let html = Self.html
        #expect(ReportRenderingTests.figure(html, "medianDaysToComplete") == "n/a")
        #expect(html.contains("median days to erase (n = 3 completed, fewer than 5)"))
        #expect(html.contains("95th percentile days (n = 3 completed, fewer than 20)"))
        #expect(html.contains("on time (n = 4 decided)"))
        #expect(html.contains("slowest completion, days (n = 3 completed)"))
        #expect(ReportRenderingTests.figure(html, "longestDaysToComplete") == "6.0")
        let json = try JSONValue.parse(ReportJSONRenderer.render(ReportFixture.dataset))
        #expect(json["summary"]?["total"]?["daysToCompleteSample"] == .integer(3))
        #expect(json["summary"]?["total"]?["decided"] == .integer(4))
        #expect(json["summary"]?["total"]?["medianDaysToComplete"] == .null)
    }

    @Test("the glossary defines every outcome, answer, verification and source the page shows")
    func glossary() throws {
        let html = Self.html
        let glossary = try #require(html.components(separatedBy: "<section class=\"glossary\">").last)
        let terms = glossary.components(separatedBy: "<dt>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        let defined = terms.joined(separator: " | ")
        for outcome in ReportOutcome.allCases {
            let term = outcome == .completedWithExceptions ? "completed with exceptions" : outcome.rawValue
            #expect(terms.contains { $0.hasPrefix(term) }, "\(outcome.rawValue) is not a term: \(defined)")
        }
        #expect(defined.contains("completed-with-exceptions"))
        for word in ReportResponse.allCases.map(\.rawValue) + ReportVerification.allCases.map(\.rawValue)
            + ReportEventSource.allCases.map(\.rawValue)
        {
            #expect(glossary.contains(word), "\(word) is not explained")
        }
        for finding in ReportFixture.dataset.findings.items {
            #expect(terms.contains(finding.code), "finding \(finding.code) is not defined: \(defined)")
        }
        for term in [
            "on time, decided", "pseudonym", "extension, denial", "duplicate, stale, ignored, unknown type",
            "event types",
        ] {
            #expect(terms.contains(term), "\(term) missing: \(defined)")
        }
    }

    @Test("the page says whether its pseudonyms are the ones the logs and jobs list print")
    func pseudonymsExplained() {
        #expect(Self.html.contains("use the same key, so a person has the same pseudonym there"))
        var dataset = ReportFixture.dataset
        dataset.operationsPseudonymKeyID = "00ff00ff00ff00ff"
        let html = String(decoding: ReportHTMLRenderer.render(dataset), as: UTF8.self)
        #expect(html.contains("use another key (<code>00ff00ff00ff00ff</code>"))
        #expect(html.contains("lifecycle report lookup"))
    }

    @Test("no style breaks words anywhere; pseudonyms and instants are kept on one line")
    func noBreakAll() {
        let html = Self.html
        #expect(!html.contains("break-all"))
        for row in ReportFixture.dataset.subjects {
            #expect(html.contains("<span class=\"nw pseudonym\">\(row.pseudonym)</span>"))
            #expect(html.contains("<span class=\"nw\">\(row.eventTime.iso8601)</span>"))
        }
    }
}
