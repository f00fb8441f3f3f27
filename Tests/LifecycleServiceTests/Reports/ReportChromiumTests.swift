import Foundation
import TestSupport
import Testing

@testable import LifecycleReports

/// The HTML report renders in a real browser engine: headless Chromium loads the page offline and writes a
/// screenshot. Skipped, with the reason printed, when `chromium` is not installed (install it with
/// `apt-get install -y chromium`; the test never installs anything).
@Suite("Deletion-compliance report in headless Chromium")
struct ReportChromiumTests {
    static var chromium: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    @Test("headless Chromium renders the HTML report to a PNG screenshot without network access")
    func rendersInChromium() async throws {
        guard let chromium = Self.chromium else {
            print("skipped: chromium is not installed (apt-get install -y chromium to run this test)")
            return
        }
        let directory = try TemporaryDirectory()
        let page = directory.file("report.html")
        let screenshot = directory.file("report.png")
        try Data(ReportHTMLRenderer.render(ReportFixture.dataset)).write(to: URL(fileURLWithPath: page))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--user-data-dir=\(directory.file("profile"))", "--proxy-server=127.0.0.1:9", "--window-size=1100,2600",
            "--screenshot=\(screenshot)", "file://\(page)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // A render takes seconds: awaited through the termination handler, so it blocks no thread meanwhile.
        let status = await (try ProcessExit.start(process)).wait()
        #expect(status == 0)
        let png = try #require(FileManager.default.contents(atPath: screenshot), "no screenshot written")
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // A blank page compresses to a few kilobytes; tables, text and charts do not.
        #expect(png.count > 50_000)
        if let target = ProcessInfo.processInfo.environment["LIFECYCLE_REPORT_SCREENSHOT"] {
            try png.write(to: URL(fileURLWithPath: target))
        }
    }
}
