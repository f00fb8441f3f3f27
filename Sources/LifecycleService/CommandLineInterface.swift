import Foundation
import LifecycleCore

/// The `lifecycle` command line: dispatches to one ``LifecycleCommand`` and turns thrown errors into one
/// clear line on standard error with a non-zero exit status.
public enum CommandLineInterface {
    static let commands: [any LifecycleCommand.Type] = [
        EndpointCommand.self, ReconcileCommand.self,
        ServeCommand.self, InspectCommand.self, IngestCommand.self, SimulateCommand.self, MigrateCommand.self,
        BenchCommand.self, DevSetupCommand.self, AccountCommand.self, OutboxCommand.self, PolicyCommand.self,
        JobsCommand.self, ReportCommand.self, DemoCommand.self,
    ]

    static var overview: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let lines = commands.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
        return """
            lifecycle: Sign in with Apple account lifecycle and deletion compliance

            usage: lifecycle COMMAND [OPTIONS]

            commands:
            \(lines.joined(separator: "\n"))

            Every command takes --config FILE (default: $LIFECYCLE_CONFIG, else lifecycle.json) where it reads
            configuration, and --help. Run 'lifecycle COMMAND --help' for its options.
            """
    }

    public static func main(arguments: [String]) async -> Int32 {
        await run(arguments: arguments, io: CommandIO())
    }

    public static func run(arguments: [String], io: CommandIO) async -> Int32 {
        guard let name = arguments.first, name != "--help", name != "-h", name != "help" else {
            io.print(overview)
            return arguments.isEmpty ? ExitStatus.failure : ExitStatus.success
        }
        if name == "--version" {
            io.print("lifecycle \(version)")
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
            return try await command.run(&parsed, io: io)
        } catch let error as UsageError {
            io.printError(
                "lifecycle \(name): \(error.message.escapingControlCharacters); see 'lifecycle \(name) --help'")
        } catch {
            io.printError("lifecycle \(name): \(String(describing: error).escapingControlCharacters)")
        }
        return ExitStatus.failure
    }

    public static let version = "0.1.0"
}
