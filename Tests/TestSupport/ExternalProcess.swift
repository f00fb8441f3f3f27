import Foundation

/// Runs outside programs (the Python verifiers, pip) and captures what they print.
public enum ExternalProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
    }

    /// The first executable called `name` on PATH.
    public static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments`, stdout and stderr together, reading its output on a thread of its own:
    /// blocking one of the test process's few concurrency threads (one per core) for a Python run or a pip
    /// install would stall every test running alongside in the parallel suite.
    /// `directory`, when given, is the working directory.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, in directory: String? = nil
    ) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let exit = try ProcessExit.start(process)
        let data = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile()) }.start()
        }
        return Result(status: await exit.wait(), output: String(decoding: data, as: UTF8.self))
    }
}
