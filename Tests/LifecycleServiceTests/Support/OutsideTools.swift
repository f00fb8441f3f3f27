import Foundation
import TestSupport

/// The test-only Python tools `make test` installs into `.build/test-venv` (scripts/test-venv.sh), and a way to
/// run them. A test that needs them is skipped, with this reason printed, when the venv is missing.
enum OutsideTools {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var venv: URL {
        if let path = ProcessInfo.processInfo.environment["LIFECYCLE_TEST_VENV"], !path.isEmpty {
            return URL(fileURLWithPath: path, relativeTo: repositoryRoot)
        }
        return repositoryRoot.appendingPathComponent(".build/test-venv")
    }

    static var scripts: URL { repositoryRoot.appendingPathComponent("Tests/OutsideClients") }

    static func tool(_ name: String) -> URL { venv.appendingPathComponent("bin/\(name)") }

    static func has(_ name: String) -> Bool { FileManager.default.isExecutableFile(atPath: tool(name).path) }

    static let missingReason =
        "the test venv is missing: run scripts/test-venv.sh (make test does) to install Tests/OutsideClients/requirements.txt"

    /// Runs a venv tool to completion in `directory` with `environment` added; output is captured.
    static func run(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], in directory: String
    ) async throws -> (status: Int32, output: String) {
        let result = try await ExternalProcess.run(
            tool(name).path, arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, in: directory)
        return (result.status, result.output)
    }
}
