import Foundation
import Testing

/// Golden files under `Tests/LifecycleServiceTests/Golden/`. Run the tests with `LIFECYCLE_UPDATE_GOLDEN=1`
/// to rewrite them from the current output, then review the diff before committing it.
enum GoldenFile {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden").path

    static var updating: Bool { ProcessInfo.processInfo.environment["LIFECYCLE_UPDATE_GOLDEN"] == "1" }

    /// Compares `bytes` with the golden file `name` (or rewrites it when updating).
    static func check(_ name: String, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = directory + "/" + name
        if updating {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return
        }
        let expected = try #require(
            FileManager.default.contents(atPath: path), "missing \(path); run with LIFECYCLE_UPDATE_GOLDEN=1",
            sourceLocation: sourceLocation)
        if Array(expected) != bytes {
            let actual = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let golden = String(decoding: expected, as: UTF8.self).split(
                separator: "\n", omittingEmptySubsequences: false)
            var lineNumber = 1
            var got = "(length differs)"
            for (offset, pair) in zip(actual, golden).enumerated() where pair.0 != pair.1 {
                lineNumber = offset + 1
                got = String(pair.0)
                break
            }
            let message =
                "\(name) differs from the golden file at line \(lineNumber): got \(got); "
                + "rerun with LIFECYCLE_UPDATE_GOLDEN=1 if the change is intended"
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: sourceLocation)
        }
    }
}
