import Testing

@testable import LifecycleService

@Suite("Command-line arguments")
struct CommandArgumentsTests {
    @Test("options take the next word or an = value, repeatable options keep every value")
    func options() throws {
        var arguments = CommandArguments(
            command: "inspect", tokens: ["--audience", "a", "--jwks=keys.json", "--audience=b", "token.txt"])
        #expect(try arguments.options("--audience") == ["a", "b"])
        #expect(try arguments.option("--jwks") == "keys.json")
        #expect(try arguments.positionals(max: 1) == ["token.txt"])
    }

    @Test("an unknown option is named in the error")
    func unknownOption() {
        var arguments = CommandArguments(command: "inspect", tokens: ["--jwsk", "x"])
        #expect(throws: UsageError.self) { try arguments.positionals(max: 1) }
        var other = CommandArguments(command: "inspect", tokens: ["--jwsk"])
        do {
            _ = try other.positionals(max: 1)
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "unknown option --jwsk for 'lifecycle inspect'")
        }
    }

    @Test("an option without a value fails")
    func missingValue() {
        var arguments = CommandArguments(command: "inspect", tokens: ["--jwks"])
        #expect(throws: UsageError.self) { try arguments.option("--jwks") }
    }

    @Test("a signed or non-numeric count is refused")
    func integers() {
        var arguments = CommandArguments(command: "bench", tokens: ["--connections", "+5"])
        #expect(throws: UsageError.self) { try arguments.integerOption("--connections", range: 1...1000) }
    }
}
