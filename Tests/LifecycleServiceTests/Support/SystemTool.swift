import Foundation
import TestSupport

/// A test-only program from a Debian package (`promtool` from `prometheus`, `systemd-analyze` from
/// `systemd`; `make test` installs them when missing), found on `PATH` and run to the end. A test that needs
/// one is skipped, naming the package, when it is absent.
struct SystemTool: Sendable {
    let path: String

    /// The program `name` on `PATH`, or nil.
    static func find(_ name: String) -> SystemTool? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return SystemTool(path: candidate) }
        }
        return nil
    }

    /// Runs it with `arguments` and `input` on standard input; standard output and error together. Killed
    /// after `timeout` (status 137 then), so a test never hangs on it.
    func run(
        _ arguments: [String], input: String = "", environment: [String: String] = [:],
        timeout: Duration = .seconds(60)
    ) async throws -> (status: Int32, output: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inFile = scratch.appendingPathComponent("in")
        let outFile = scratch.appendingPathComponent("out")
        try Data(input.utf8).write(to: inFile)
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = try FileHandle(forReadingFrom: inFile)
        let output = try FileHandle(forWritingTo: outFile)
        process.standardOutput = output
        process.standardError = output
        let exit = try ProcessExit.start(process)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        }
        let status = await exit.wait()
        watchdog.cancel()
        return (status, (try? String(contentsOf: outFile, encoding: .utf8)) ?? "")
    }
}
