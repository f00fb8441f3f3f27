import Foundation
import LifecycleCore
import Testing

@testable import LifecycleReports

/// `lifecycle bench report`: the report figures in the README come from it, so the real process must write a
/// report that verifies and lists every request, and the page must stay readable at that size.
@Suite("Report benchmark")
struct ReportBenchmarkTests {
    /// The requests section of a page: from its heading to the glossary.
    static func requestsSection(_ html: String) throws -> Substring {
        let start = try #require(html.range(of: "<section class=\"requests\">"))
        let end = try #require(html.range(of: "<section class=\"glossary\">"))
        return html[start.lowerBound..<end.lowerBound]
    }

    @Test("the real process writes a month of requests, prints its figures, and the report verifies")
    func process() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-report-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // More requests than the page lists one by one (ReportOptions.pageRequestLimit, 1000).
        let events = 1100
        let run = try await LifecycleProcess.run(
            [
                "bench", "report", "--events", String(events), "--seed", "3", "--keep", directory, "--policies",
                ErasureScenario.shippedPolicies,
            ], timeout: .seconds(600))
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        func line(_ label: String) -> String? { lines.first { $0.hasPrefix(label + " ") } }
        #expect(line("requests")?.contains("\(events) deletion requests in one month (seed 3)") == true, "\(run)")
        #expect(line("setup")?.hasSuffix("(store written directly, not part of the run)") == true, "\(run)")
        #expect(line("report")?.contains("requests/s") == true, "\(run)")
        #expect(line("peak memory")?.contains("MiB at the end") == true, "\(run)")
        // The phases are parts of the run: each named, and together no longer than it.
        func seconds(_ text: Substring) -> Double? { Double(text.split(separator: " ").last ?? "") }
        let phases = (line("phases") ?? "").dropFirst("phases".count).split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " s", with: "")
        }
        let phaseNames = phases.map { $0.split(separator: " ").first ?? "" }
        #expect(phaseNames == ["collect", "files", "log", "receipts"], "\(run)")
        let phaseTotal = phases.compactMap { seconds(Substring($0)) }.reduce(0, +)
        let runSeconds = line("report").flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") }
        #expect(phases.compactMap { seconds(Substring($0)) }.count == 4, "\(run)")
        #expect(phaseTotal > 0 && phaseTotal <= (runSeconds ?? 0) + 0.02, "\(run)")
        #expect(line("outcomes")?.contains("\(events) received") == true, "\(run)")
        #expect(line("verify")?.contains("the written report verifies") == true, "\(run)")
        #expect(line("verify")?.contains(" MiB: ") == true, "the verify is timed and measured apart: \(run)")

        let verified = try await LifecycleProcess.run(
            ["report", "verify", directory + "/reports", "--public-key", directory + "/report-ed25519.pub.pem"])
        #expect(verified.status == 0, "\(verified)")

        let year = directory + "/reports/bench/2027"
        let names = try FileManager.default.contentsOfDirectory(atPath: year)
        let csvName = try #require(names.first { $0.hasSuffix(".csv") })
        let htmlName = try #require(names.first { $0.hasSuffix(".html") })
        let csv = try String(contentsOfFile: year + "/" + csvName, encoding: .utf8)
        #expect(csv.split(separator: "\r\n").count == events + 1)
        let html = try String(contentsOfFile: year + "/" + htmlName, encoding: .utf8)
        let section = try Self.requestsSection(html)
        #expect(section.contains("<h2>Exceptions</h2>"))
        #expect(section.contains("is in this report's CSV and JSON files"))
        #expect(!section.contains("<h2>Every request</h2>"))
        let listed = section.components(separatedBy: "<tbody class=\"request\">").count - 1
        #expect(listed > 0 && listed < events / 5, "listed \(listed) of \(events)")
    }

    /// The peak resident memory `bench report --json` reports for a month of `events` requests.
    /// The peaks of `bench report` at `events` requests: the report's, and its verify's.
    static func peakKiB(events: Int) async throws -> (report: Int, verify: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-report-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try await LifecycleProcess.run(
            [
                "bench", "report", "--events", String(events), "--keep", directory, "--policies",
                ErasureScenario.shippedPolicies, "--json",
            ],
            // One malloc arena, so how many arenas the threads happen to create does not move the peak by a few
            // MiB either way. (The peak is the process's own: the benchmark resets it when it starts, since a
            // child of this test runner would otherwise begin with the runner's resident size as its peak.)
            environment: ["MALLOC_ARENA_MAX": "1"], timeout: .seconds(600))
        #expect(run.status == 0, "\(run)")
        let json = try #require(
            run.output.firstIndex(of: "{").map { JSONValue.parseIfValid(Array(run.output[$0...].utf8)) })
        return (
            Int(try #require(json?["peakResidentKiB"]?.integerValue)),
            Int(try #require(json?["verifyPeakResidentKiB"]?.integerValue))
        )
    }

    @Test(
        "a report's memory does not grow with its requests: the rows wait on disk, the log's leaves are made as written"
    )
    func memoryDoesNotGrowWithRequests() async throws {
        // Both above the 1,000 requests the page lists one by one, so the page is the same size.
        let small = try await Self.peakKiB(events: 1100)
        let large = try await Self.peakKiB(events: 4100)
        // Held in memory, each request's row took about 4.5 KiB (13 MiB more for 3,000 more requests), and the
        // log held its leaf and receipt besides: 3.1 KiB per request measured with the rows in memory and the
        // log streamed. Spooled, what grows is a few values per request, the index and the store's cache:
        // 0.3 KiB alone, 1.0-1.1 with both cores busy.
        let perRequest = Double(large.report - small.report) / 3000
        #expect(
            perRequest < 2,
            "\(small.report) KiB at 1,100 requests, \(large.report) KiB at 4,100: \(perRequest) KiB per request")
        // The verify read the JSON file whole and held every outcome leaf: 5.2 KiB per request. It now walks
        // the mapped file row by row and keeps 16 bytes of each deletion's name with its latest leaf.
        let verifyPerRequest = Double(large.verify - small.verify) / 3000
        #expect(
            verifyPerRequest < 2,
            "verify: \(small.verify) KiB at 1,100 requests, \(large.verify) KiB at 4,100: \(verifyPerRequest) KiB")
    }

    @Test("failed jobs beyond the page's limit are counted, the first ones by event time listed")
    func failedTargetsBeyondLimit() throws {
        var dataset = ReportFixture.dataset
        let failed = try #require(dataset.subjects.first { $0.targets.contains { $0.status == "failed" } })
        let rows = (0..<5).map { index in
            var row = failed
            row.pseudonym = "ps_failed\(index)"
            row.eventTime = row.eventTime.adding(milliseconds: Int64(index))
            return row
        }
        dataset.subjects = ReportRows(rows)
        dataset.pageRequestLimit = 2
        let html = String(decoding: ReportHTMLRenderer.render(dataset), as: UTF8.self)
        let start = try #require(html.range(of: "<h2>Failed jobs</h2>"))
        let section = html[start.upperBound...].components(separatedBy: "</section>")[0]
        #expect(section.contains("The first 2 of <b data-figure=\"failedTargets\">5</b> by event time."))
        #expect(section.contains("ps_failed0") && section.contains("ps_failed1"))
        #expect(!section.contains("ps_failed2") && !section.contains("ps_failed4"))
    }

    @Test("above the page's limit the page lists the exceptions only, sums up the rest and says where it is")
    func exceptionsOnly() throws {
        var dataset = ReportFixture.dataset
        let everything = try Self.requestsSection(String(decoding: ReportHTMLRenderer.render(dataset), as: UTF8.self))
        #expect(everything.contains("<h2>Every request</h2>"))
        dataset.pageRequestLimit = 2
        let html = String(decoding: ReportHTMLRenderer.render(dataset), as: UTF8.self)
        let section = try Self.requestsSection(html)
        #expect(section.contains("<h2>Exceptions</h2>"))
        #expect(section.contains("This period has <b>\(dataset.subjects.count)</b> requests"))
        #expect(section.contains(".csv</code> and <code>.json</code>"))
        let exceptions = dataset.subjects.filter(\.isException)
        #expect(!exceptions.isEmpty && exceptions.count < dataset.subjects.count)
        let listed = exceptions.prefix(dataset.pageRequestLimit)
        for row in dataset.subjects {
            let shown = listed.contains { $0.pseudonym == row.pseudonym && $0.eventType == row.eventType }
            if shown { #expect(section.contains(row.pseudonym), "\(row.eventType) \(row.outcome)") }
            if !row.isException && !exceptions.contains(where: { $0.pseudonym == row.pseudonym }) {
                #expect(!section.contains(row.pseudonym), "\(row.eventType) \(row.outcome) is not an exception")
            }
        }
        #expect(section.contains("data-figure=\"exceptionCount\">\(exceptions.count)</b>"))
        // The per-request tables of retained items are summed up, and the CSV still holds every request.
        #expect(html.contains("Summed up by category, legal basis and status"))
        let csv = String(decoding: ReportCSVRenderer.render(dataset), as: UTF8.self)
        #expect(csv.split(separator: "\r\n").count == dataset.subjects.count + 1)
    }
}
