import Testing

@testable import LifecycleCLI

@Suite("Command-line arguments")
struct CommandArgumentsTests {
    static let inspect = [
        CommandSyntax(
            "inspect", positionals: "[FILE]", count: 0...1,
            options: [.value("--audience", "ID", repeatable: true), .value("--jwks", "FILE"), .flag("--allow-expired")])
    ]
    static let jobs = [
        CommandSyntax("jobs", action: "list", options: [.value("--status", "STATUS"), .json]),
        CommandSyntax("jobs", action: "run", options: [.flag("--once")]),
    ]

    func parsed(_ tokens: [String], _ syntax: [CommandSyntax] = inspect) throws(UsageError) -> CommandArguments {
        var arguments = CommandArguments(command: syntax[0].command, tokens: tokens)
        try arguments.parse(syntax)
        return arguments
    }

    func refusal(_ tokens: [String], _ syntax: [CommandSyntax] = inspect) -> UsageError? {
        do {
            _ = try parsed(tokens, syntax)
            return nil
        } catch {
            return error
        }
    }

    @Test("options take the next word or an = value, repeatable options keep every value")
    func options() throws {
        let arguments = try parsed(["--audience", "a", "--jwks=keys.json", "--audience=b", "token.txt"])
        #expect(try arguments.options("--audience") == ["a", "b"])
        #expect(try arguments.option("--jwks") == "keys.json")
        #expect(try arguments.positionals(max: 1) == ["token.txt"])
    }

    @Test("an option the syntax does not declare is refused, naming it, with the usage")
    func unknownOption() {
        let error = refusal(["--jwsk", "x"])
        #expect(error?.message == "--jwsk is not an option of 'lifecycle inspect'")
        #expect(error?.usage == "lifecycle inspect [FILE] [--audience ID]... [--jwks FILE] [--allow-expired]")
    }

    @Test("each action takes only its own options, wherever they stand")
    func perAction() throws {
        #expect(
            refusal(["run", "--status", "failed"], Self.jobs)?.message
                == "--status is not an option of 'lifecycle jobs run'")
        #expect(refusal(["run", "--status", "failed"], Self.jobs)?.usage == "lifecycle jobs run [--once]")
        let list = try parsed(["--status", "failed", "list", "--json"], Self.jobs)
        #expect(list.syntax?.action == "list")
        #expect(try list.option("--status") == "failed" && list.flag("--json"))
        #expect(refusal(["frobnicate"], Self.jobs)?.message.contains("unknown action 'frobnicate'") == true)
        #expect(refusal([], Self.jobs)?.message.contains("say list or run") == true)
    }

    @Test("-- ends the options: what follows is positional, even a flag's name")
    func doubleDash() throws {
        let arguments = try parsed(["--", "--allow-expired"])
        #expect(!arguments.flag("--allow-expired"))
        #expect(try arguments.positionals(max: 1) == ["--allow-expired"])
        #expect(refusal(["--", "a", "b"])?.message == "unexpected argument 'b' for 'lifecycle inspect'")
    }

    @Test("an option without a value, a flag with one, or a missing required option fail")
    func malformed() {
        #expect(refusal(["--jwks"])?.message == "--jwks needs a value")
        #expect(refusal(["--jwks", "--"])?.message == "--jwks needs a value")
        #expect(refusal(["--allow-expired=yes"])?.message == "--allow-expired takes no value, got 'yes'")
        let required = [CommandSyntax("ingest", options: [.value("--file", "FILE", required: true)])]
        #expect(refusal([], required)?.message == "--file FILE is required")
    }

    @Test("a signed or non-numeric count is refused")
    func integers() throws {
        let arguments = try parsed(
            ["--connections", "+5"], [CommandSyntax("bench", options: [.value("--connections", "K")])])
        #expect(throws: UsageError.self) { try arguments.integerOption("--connections", range: 1...1000) }
    }

    @Test("usage lines wrap under their arguments, never before the first")
    func usageBlock() {
        let block = CommandSyntax.usageBlock(Self.jobs + Self.inspect, width: 40)
        #expect(
            block == """
                usage: lifecycle jobs list [--status STATUS]
                                           [--json]
                       lifecycle jobs run [--once]
                       lifecycle inspect [FILE]
                                         [--audience ID]...
                                         [--jwks FILE]
                                         [--allow-expired]
                """)
    }
}
