import Foundation
import HTTP1
import HTTPServer
import TestSupport

/// The built `lifecycle` executable run as a separate process, for what only a real process shows: a
/// `kill -9` in the middle of work, signals, background work with nothing else running, and exit statuses.
struct LifecycleProcess {
    let process: Process
    /// Its exit, awaited without spinning (see `ProcessExit`).
    let exit: ProcessExit

    /// `.build/<config>/lifecycle`, next to the test bundle that `swift build --build-tests` produced.
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [
            bundle, bundle.deletingLastPathComponent(), bundle.deletingLastPathComponent().deletingLastPathComponent(),
        ] {
            let url = candidate.appendingPathComponent("lifecycle")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/lifecycle")
    }

    /// The test process's environment without the `LIFECYCLE_*` variables (a developer's `LIFECYCLE_CONFIG`
    /// must not leak into a test), plus `extra`.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIFECYCLE_") }
        for (name, value) in extra { environment[name] = value }
        return environment
    }

    static func serve(configurationFile: String) throws -> LifecycleProcess {
        try start(["serve", "--config", configurationFile])
    }

    /// Starts `lifecycle ARGUMENTS…`; standard error goes to `standardError` (a file, appended) or nowhere.
    static func start(
        _ arguments: [String], environment extra: [String: String] = [:], standardError: String? = nil
    ) throws -> LifecycleProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment(extra)
        process.standardOutput = FileHandle.nullDevice
        if let standardError {
            if !FileManager.default.fileExists(atPath: standardError) {
                _ = FileManager.default.createFile(atPath: standardError, contents: nil)
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: standardError))
            handle.seekToEndOfFile()
            process.standardError = handle
        } else {
            process.standardError = FileHandle.nullDevice
        }
        return LifecycleProcess(process: process, exit: try ProcessExit.start(process))
    }

    /// What a command printed and how it exited.
    struct Finished: Sendable, CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String
        /// True when a signal ended the process (a trap is SIGILL or SIGTRAP, the watchdog SIGKILL), false for
        /// a normal exit.
        var signalled = false

        var errorLines: [Substring] { errors.split(separator: "\n") }
        var description: String { "exit \(status), stdout: \(output.prefix(2000)), stderr: \(errors.prefix(2000))" }
    }

    /// Runs `lifecycle ARGUMENTS…` to the end, in `directory` when given, capturing both outputs through files
    /// (a pipe could fill up and stall the child while nobody reads it). A command still running after
    /// `timeout` is killed (exit status 137 then): a test must never hang on one.
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], directory: String? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> Finished {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lifecycle-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outFile = scratch.appendingPathComponent("out")
        let errFile = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment(extra)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        let exit = try ProcessExit.start(process)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        }
        let status = await exit.wait()
        watchdog.cancel()
        return Finished(
            status: status, output: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "",
            signalled: process.terminationReason == .uncaughtSignal)
    }

    /// Polls `/readyz` until the server answers 200. The default is generous: no test measures how fast
    /// `serve` starts, and with the whole suite beside it on two cores a start that migrates a PostgreSQL
    /// schema took longer than 15 s.
    static func waitUntilReady(port: Int, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let client = HTTPClient(host: "127.0.0.1", port: port, timeout: .seconds(1))
        while ContinuousClock.now < deadline {
            if let response = try? await client.get("/readyz"), response.status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ProcessError.notReady
    }

    func kill(signal: Int32) {
        if process.isRunning { Foundation.kill(process.processIdentifier, signal) }
    }

    /// Waits for the exit without blocking a thread: a graceful shutdown can take seconds, and neither one of
    /// the test process's few concurrency threads nor a core should be spent on it.
    func waitForExit() async -> Int32 {
        await exit.wait()
    }

    /// SIGTERM, as systemd stops the service: its exit status and how long it took, SIGKILL after `limit`.
    func terminate(within limit: Duration = .seconds(60)) async -> (status: Int32, took: Duration) {
        let started = ContinuousClock.now
        kill(signal: SIGTERM)
        if await !eventually(timeout: limit, { !self.process.isRunning }) { kill(signal: SIGKILL) }
        let status = await waitForExit()
        return (status, ContinuousClock.now - started)
    }

    enum ProcessError: Error { case notReady }
}
