import Foundation
import LifecycleCore
import LifecycleEngine

/// The `lifecycle` command line: dispatches to one ``LifecycleCommand`` and turns thrown errors into one
/// clear line on standard error with a non-zero exit status.
public enum CommandLineInterface {
    static let commands: [any LifecycleCommand.Type] = [
        EndpointCommand.self, AppleCommand.self, ReconcileCommand.self,
        ServeCommand.self, InspectCommand.self, IngestCommand.self, SimulateCommand.self, MigrateCommand.self,
        BenchCommand.self, DevSetupCommand.self, AccountCommand.self, OutboxCommand.self, PolicyCommand.self,
        JobsCommand.self, RequestCommand.self, ReportCommand.self, KeysCommand.self, BackupCommand.self,
        RestoreCommand.self, DemoCommand.self, SignalsCommand.self,
    ]

    static var overview: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let lines = commands.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
        return """
            lifecycle: Sign in with Apple account lifecycle and deletion compliance

            usage: lifecycle COMMAND [OPTIONS]

            commands:
            \(lines.joined(separator: "\n"))

            Commands that read the configuration take --config FILE (default: $LIFECYCLE_CONFIG, else
            lifecycle.json). A command refuses any option it does not use, naming it with its usage; -- ends
            the options. serve logs JSON lines on standard error; other commands print one line when they
            cannot run, and their structured log only with --log-level LEVEL (or LIFECYCLE_LOG_LEVEL).
            Run 'lifecycle COMMAND --help' or 'lifecycle help COMMAND' for a command's options.
            """
    }

    public static func main(arguments: [String]) async -> Int32 {
        await run(arguments: arguments, io: CommandIO())
    }

    public static func run(arguments: [String], io: CommandIO) async -> Int32 {
        guard let name = arguments.first, name != "--help", name != "-h" else {
            io.print(overview)
            return arguments.isEmpty ? ExitStatus.failure : ExitStatus.success
        }
        if name == "--version" {
            io.print("lifecycle \(version)")
            return ExitStatus.success
        }
        if name == "help" {
            // `lifecycle help COMMAND` is `lifecycle COMMAND --help`.
            guard arguments.count > 1 else {
                io.print(overview)
                return ExitStatus.success
            }
            guard arguments.count == 2, let command = commands.first(where: { $0.name == arguments[1] }) else {
                io.printError(
                    "lifecycle help: no command '\(arguments.dropFirst().joined(separator: " ").escapingControlCharacters)'; run 'lifecycle --help' for the list"
                )
                return ExitStatus.failure
            }
            io.print(command.help)
            return ExitStatus.success
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            io.printError(
                "lifecycle: unknown command '\(name.escapingControlCharacters)'; run 'lifecycle --help' for the list")
            return ExitStatus.failure
        }
        var parsed = CommandArguments(command: name, tokens: Array(arguments.dropFirst()))
        if parsed.wantsHelp {
            io.print(command.help)
            return ExitStatus.success
        }
        do {
            let syntax = try parsed.parse(command.syntax)
            let commandIO = try io.logging(at: logLevel(&parsed, syntax: syntax, environment: io.environment))
            return try await command.run(&parsed, io: commandIO)
        } catch let error as UsageError {
            let pointer = error.usage.map { "usage: \($0)" } ?? "see 'lifecycle \(name) --help'"
            io.printError("lifecycle \(name): \(error.message.escapingControlCharacters); \(pointer)")
        } catch {
            io.printError("lifecycle \(name): \(Self.oneLine(error))")
        }
        return ExitStatus.failure
    }

    /// The structured log a command was asked for: `--log-level LEVEL` where its syntax offers it, else
    /// `LIFECYCLE_LOG_LEVEL`; nil when neither is given.
    static func logLevel(
        _ arguments: inout CommandArguments, syntax: CommandSyntax, environment: [String: String]
    ) throws(UsageError) -> LogLevel? {
        guard syntax.option(named: CommandOption.logLevel.name) != nil else { return nil }
        let (text, source) =
            if let given = try arguments.option(CommandOption.logLevel.name) {
                (given, CommandOption.logLevel.name)
            } else {
                (environment["LIFECYCLE_LOG_LEVEL"] ?? "", "LIFECYCLE_LOG_LEVEL")
            }
        guard !text.isEmpty else { return nil }
        guard let level = LogLevel(rawValue: text) else {
            throw UsageError(
                "\(source) must be one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'",
                usage: syntax.usage)
        }
        return level
    }

    /// An error as the one line a command prints: control characters, line breaks included, escaped
    /// (``Swift/String/escapingControlCharacters``), so outside input quoted in it cannot forge a line.
    static func oneLine(_ error: any Error) -> String { String(oneLine: error) }

    public static let version = "0.1.0"
}
