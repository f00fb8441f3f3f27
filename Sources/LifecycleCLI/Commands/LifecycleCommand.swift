import LifecycleEngine

/// One `lifecycle` sub-command. The executable only dispatches; each command declares what it accepts
/// (``syntax``: one ``CommandSyntax`` per action), which the dispatcher parses before ``run(_:io:)``, and
/// returns its exit status.
protocol LifecycleCommand: Sendable {
    static var name: String { get }
    /// One line for `lifecycle --help`.
    static var summary: String { get }
    /// What the command, or each of its actions, accepts.
    static var syntax: [CommandSyntax] { get }
    /// The text of `lifecycle NAME --help` after its usage lines.
    static var details: String { get }
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
    /// The full `lifecycle NAME --help` text: the usage lines rendered from ``syntax``, then ``details``.
    static var help: String { CommandSyntax.usageBlock(syntax) + "\n\n" + details }

    /// The config file: `--config`, else `LIFECYCLE_CONFIG`, else `lifecycle.json`.
    static func configurationFile(_ arguments: inout CommandArguments, io: CommandIO) throws(UsageError) -> String {
        try arguments.option("--config") ?? io.environment["LIFECYCLE_CONFIG"] ?? ServiceConfiguration.defaultFile
    }
}
