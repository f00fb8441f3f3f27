import Foundation
import LifecycleCore
import LifecycleEngine
import Synchronization

/// Where a command writes: standard output for results (human text or `--json`), standard error for the one
/// line that explains a failure. Tests capture both.
public final class CommandIO: Sendable {
    private let out: @Sendable (String) -> Void
    private let err: @Sendable (String) -> Void
    public let environment: [String: String]
    /// Standard input, read lazily (only `-` arguments read it).
    public let readStandardInput: @Sendable () -> Data
    /// The structured log asked for with `--log-level` or `LIFECYCLE_LOG_LEVEL`; nil: none (a command that
    /// cannot run says why in its one line), except `serve`, which logs at the configured level.
    public let logLevel: LogLevel?

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        out: @escaping @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) },
        readStandardInput: @escaping @Sendable () -> Data = { FileHandle.standardInput.readDataToEndOfFile() },
        logLevel: LogLevel? = nil
    ) {
        self.environment = environment
        self.out = out
        self.err = err
        self.readStandardInput = readStandardInput
        self.logLevel = logLevel
    }

    /// The same outputs with the structured log at `level`.
    func logging(at level: LogLevel?) -> CommandIO {
        CommandIO(environment: environment, out: out, err: err, readStandardInput: readStandardInput, logLevel: level)
    }

    public func print(_ line: String) { out(line + "\n") }
    public func printError(_ line: String) { err(line + "\n") }

    /// Where log lines go: standard error.
    var logSink: EventLog.Sink {
        let err = self.err
        return { line in err(line + "\n") }
    }

    /// The sink of a command's structured log: standard error when a level was asked for
    /// (``logLevel``), else nowhere (`serve` uses ``logSink`` always).
    var commandLogSink: EventLog.Sink {
        guard logLevel != nil else { return { _ in } }
        return logSink
    }

    /// The process clock, shifted by the test-only `LIFECYCLE_CLOCK_OFFSET_SECONDS` when it is set.
    func clock() throws(ConfigurationError) -> SystemClock { try SystemClock.fromEnvironment(environment) }

    /// Captures output in memory (tests).
    public static func capturing(
        environment: [String: String] = [:], standardInput: Data = Data()
    ) -> (io: CommandIO, output: @Sendable () -> String, errors: @Sendable () -> String) {
        let outBuffer = Mutex("")
        let errBuffer = Mutex("")
        let io = CommandIO(
            environment: environment, out: { text in outBuffer.withLock { $0 += text } },
            err: { text in errBuffer.withLock { $0 += text } }, readStandardInput: { standardInput })
        return (io, { outBuffer.withLock { $0 } }, { errBuffer.withLock { $0 } })
    }
}
