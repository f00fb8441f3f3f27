import Foundation
import HTTP

/// The built `lifecycle` executable run as a separate process, for what only a real process shows: a
/// `kill -9` in the middle of work, and exit statuses.
struct LifecycleProcess {
    let process: Process

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

    static func serve(configurationFile: String) throws -> LifecycleProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--config", configurationFile]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return LifecycleProcess(process: process)
    }

    /// What one finished run of a command showed from outside.
    struct Outcome: Sendable {
        var status: Int32
        /// True when a signal ended the process (a trap is SIGILL or SIGTRAP), false for a normal exit.
        var signalled: Bool
        var out: String
        var err: String
    }

    /// Runs `lifecycle ARGUMENTS` in `directory` to completion, capturing its output, on a thread of its own.
    static func run(_ arguments: [String], in directory: String? = nil) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread {
                let outBytes = out.fileHandleForReading.readDataToEndOfFile()
                let errBytes = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(
                    returning: Outcome(
                        status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                        out: String(decoding: outBytes, as: UTF8.self), err: String(decoding: errBytes, as: UTF8.self)))
            }.start()
        }
    }

    /// Polls `/readyz` until the server answers 200.
    static func waitUntilReady(port: Int, timeout: Duration = .seconds(15)) async throws {
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

    /// Waits on a thread of its own: blocking one of the test process's few concurrency threads for a
    /// graceful shutdown would stall every other test.
    func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let process = self.process
            Thread {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }.start()
        }
    }

    enum ProcessError: Error { case notReady }
}
