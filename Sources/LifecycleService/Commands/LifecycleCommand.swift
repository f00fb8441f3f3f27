/// One `lifecycle` sub-command. The executable only dispatches; each command parses its own options,
/// prints its own `--help`, and returns its exit status.
protocol LifecycleCommand: Sendable {
    static var name: String { get }
    /// One line for `lifecycle --help`.
    static var summary: String { get }
    /// The full `lifecycle NAME --help` text.
    static var help: String { get }
    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32
}

/// Exit statuses shared by every command.
enum ExitStatus {
    static let success: Int32 = 0
    /// The command ran and the answer is "no": invalid token, findings at the threshold, endpoint not ready.
    static let negative: Int32 = 1
    /// The command could not run: bad usage, unreadable input, unavailable storage.
    static let failure: Int32 = 2
}

extension LifecycleCommand {
    /// The config file: `--config`, else `LIFECYCLE_CONFIG`, else `lifecycle.json`.
    static func configurationFile(_ arguments: inout CommandArguments, io: CommandIO) throws(UsageError) -> String {
        try arguments.option("--config") ?? io.environment["LIFECYCLE_CONFIG"] ?? ServiceConfiguration.defaultFile
    }
}
