import Foundation
import Synchronization

/// Where a command writes: standard output for results (human text or `--json`), standard error for the one
/// line that explains a failure. Tests capture both.
public final class CommandIO: Sendable {
    private let out: @Sendable (String) -> Void
    private let err: @Sendable (String) -> Void
    public let environment: [String: String]
    /// Standard input, read lazily (only `-` arguments read it).
    public let readStandardInput: @Sendable () -> Data

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        out: @escaping @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) },
        readStandardInput: @escaping @Sendable () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }
    ) {
        self.environment = environment
        self.out = out
        self.err = err
        self.readStandardInput = readStandardInput
    }

    public func print(_ line: String) { out(line + "\n") }
    public func printError(_ line: String) { err(line + "\n") }

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
