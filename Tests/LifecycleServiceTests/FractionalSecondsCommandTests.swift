import Foundation
import LifecycleCore
import Testing

@testable import LifecycleEngine

/// Regression: a time with 4 to 9 fractional digits (Python's `isoformat()` writes 6) trapped in
/// `ISO8601Format.parse`, so every command taking a time died with SIGILL. Each path is driven through the
/// real `lifecycle` executable: such a time is accepted, one with 10 or more digits is refused with a
/// one-line error naming the option and exit status 2, and no run ends by a signal.
@Suite("Times with 4 to 12 fractional digits through every command (real process)")
struct FractionalSecondsCommandTests {
    /// One way a time reaches the parser: the arguments that carry `time`, run in the dev-setup directory.
    struct Path: Sendable, CustomTestStringConvertible {
        var option: String
        /// The seconds the accepted fractions are appended to: now when nil.
        var base: String? = nil
        var arguments: @Sendable (_ time: String, _ directory: String) -> [String]
        var testDescription: String { option }
    }

    static let repositoryPolicies = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("policies").path

    static let paths: [Path] = [
        Path(option: "inspect --at") { time, directory in
            [
                "inspect", "--jwks", "apple-dev-jwks.json", "--audience", "com.example.app", "--at", time,
                directory + "/body.json",
            ]
        },
        Path(option: "simulate --event-time") { time, _ in
            [
                "simulate", "--config", "lifecycle.json", "--type", "consent-revoked", "--sub", "s1", "--event-time",
                time, "--print",
            ]
        },
        Path(option: "reconcile --as-of") { time, _ in ["reconcile", "--config", "lifecycle.json", "--as-of", time] },
        Path(option: "report generate --from", base: "2025-12-15T00:00:00") { time, _ in
            ["report", "generate", "--config", "lifecycle.json", "--from", time, "--to", "2026-02-01"]
        },
        Path(option: "report generate --to", base: "2025-12-15T00:00:00") { time, _ in
            ["report", "generate", "--config", "lifecycle.json", "--from", "2025-12-01", "--to", time]
        },
        Path(option: "policy explain --at") { time, _ in
            ["policy", "explain", "default", "--dir", repositoryPolicies, "--at", time]
        },
        Path(option: "account link --event-time") { time, _ in
            ["account", "link", "--config", "lifecycle.json", "--app", "demo", "--sub", "s1", "--event-time", time]
        },
    ]

    /// A dev-setup directory with a request body signed by its key (issued now, so valid at `now`).
    static func devDirectory() async throws -> String {
        let directory = try await DevSetupDirectory.make(prefix: "frac")
        let body = try await LifecycleProcess.run(
            ["simulate", "--config", "lifecycle.json", "--type", "consent-revoked", "--sub", "s1", "--print"],
            directory: directory)
        try #require(body.status == 0, "simulate --print: \(body.errors)")
        try Data(body.output.utf8).write(to: URL(fileURLWithPath: directory + "/body.json"))
        return directory
    }

    @Test("4, 6 and 9 fractional digits are accepted", arguments: paths)
    func accepted(path: Path) async throws {
        let directory = try await Self.devDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let base = path.base ?? String(SystemClock().now().iso8601.prefix(19))
        for fraction in [".1234", ".123456", ".123456789"] {
            let time = base + fraction + "Z"
            let outcome = try await LifecycleProcess.run(path.arguments(time, directory), directory: directory)
            #expect(!outcome.signalled, "\(path.option) \(time) ended by a signal")
            #expect(outcome.status == 0, "\(path.option) \(time): \(outcome.errors)")
        }
    }

    @Test("10 to 12 fractional digits are refused with one line naming the option, exit 2", arguments: paths)
    func refused(path: Path) async throws {
        let directory = try await Self.devDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for fraction in [".1234567890", ".12345678901", ".123456789012"] {
            let time = "2026-01-01T00:00:00" + fraction + "Z"
            let outcome = try await LifecycleProcess.run(path.arguments(time, directory), directory: directory)
            #expect(!outcome.signalled, "\(path.option) \(time) ended by a signal")
            #expect(outcome.status == 2, "\(path.option) \(time): \(outcome.errors)")
            let lines = outcome.errors.split(separator: "\n").filter { !$0.hasPrefix("{") }
            #expect(lines.count == 1, "\(path.option): \(outcome.errors)")
            let option = String(path.option.split(separator: " ").last ?? "")
            #expect(lines.first?.contains("\(option) \(time)") == true, "\(outcome.errors)")
        }
    }

    @Test("report verify of a manifest line whose times have 6 or 12 fractional digits names the line, no trap")
    func hostileManifestLine() async throws {
        let directory = try await Self.devDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try await LifecycleProcess.run(
            ["report", "generate", "--config", "lifecycle.json", "--from", "2025-12-01", "--to", "2026-01-01"],
            directory: directory)
        try #require(generated.status == 0, "\(generated.errors)")
        let manifest = directory + "/reports/demo/manifest.jsonl"
        let original = try String(contentsOfFile: manifest, encoding: .utf8)
        for fraction in [".123456", ".123456789012"] {
            let edited = original.replacingOccurrences(
                of: #""generatedAt":"([^".]*)\.[0-9]*Z""#, with: "\"generatedAt\":\"$1\(fraction)Z\"",
                options: .regularExpression)
            #expect(edited != original)
            try edited.write(toFile: manifest, atomically: true, encoding: .utf8)
            let outcome = try await LifecycleProcess.run(
                ["report", "verify", "reports/demo", "--config", "lifecycle.json"], directory: directory)
            #expect(!outcome.signalled)
            #expect(outcome.status == 1, "\(outcome.errors)")
            #expect(outcome.errors.contains("manifest.jsonl line 1"), "\(outcome.errors)")
        }
    }
}
