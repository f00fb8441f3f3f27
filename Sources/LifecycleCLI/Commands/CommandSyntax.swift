/// One option a command, or one action of a command, accepts: a flag (`--json`) or an option with a value
/// (`--status STATUS`, also written `--status=STATUS`).
public struct CommandOption: Sendable, Hashable {
    public var name: String
    /// The value's placeholder in the usage line; nil for a flag.
    public var placeholder: String?
    /// May be given more than once, every value kept (`--audience ID...`).
    public var repeatable = false
    /// Must be given.
    public var required = false

    public static func flag(_ name: String) -> CommandOption { CommandOption(name: name, placeholder: nil) }

    public static func value(
        _ name: String, _ placeholder: String, required: Bool = false, repeatable: Bool = false
    ) -> CommandOption {
        CommandOption(name: name, placeholder: placeholder, repeatable: repeatable, required: required)
    }

    /// `--config FILE`: where a command that reads configuration finds it.
    public static let config = value("--config", "FILE")
    /// `--log-level LEVEL`: the structured log on standard error, for a command that has one.
    public static let logLevel = value("--log-level", "LEVEL")
    /// `--json`: the result as one JSON document.
    public static let json = flag("--json")
    /// `--url URL`: work through a running service's admin listener instead of the store.
    public static let adminURL = value("--url", "URL")
    /// `--token-file FILE`: the admin bearer token for `--url`.
    public static let tokenFile = value("--token-file", "FILE")

    public var takesValue: Bool { placeholder != nil }

    /// As the usage line shows it: `[--status STATUS]`, `--file FILE`, `[--audience ID]...`.
    var usage: String {
        let text = placeholder.map { "\(name) \($0)" } ?? name
        return (required ? text : "[\(text)]") + (repeatable ? "..." : "")
    }
}

/// What one command, or one action of a command (`jobs run`), accepts: its options and its positional
/// words. Every command declares one per action (``LifecycleCommand/syntax``), and the parser refuses
/// anything else with one line naming it and this usage (``CommandArguments/parse(_:)``), so no command can
/// accept an option it ignores. The usage lines of `--help` are rendered from the same declarations.
public struct CommandSyntax: Sendable {
    /// The command's name (`jobs`).
    public var command: String
    /// The action word that selects this syntax (`run`), nil for a command without actions.
    public var action: String?
    /// The positional words after the action, as the usage shows them (`ID TARGET`, `[DIR]`).
    public var positionals: String
    /// How many positional words (after the action) it takes.
    public var positionalCount: ClosedRange<Int>
    public var options: [CommandOption]

    public init(
        _ command: String, action: String? = nil, positionals: String = "", count: ClosedRange<Int> = 0...0,
        options: [CommandOption]
    ) {
        self.command = command
        self.action = action
        self.positionals = positionals
        self.positionalCount = count
        self.options = options
    }

    /// `jobs run`, or `serve`.
    public var name: String { action.map { "\(command) \($0)" } ?? command }

    public func option(named name: String) -> CommandOption? { options.first { $0.name == name } }

    /// `lifecycle jobs list [--status STATUS] [--json] [--config FILE]` on one line.
    public var usage: String {
        (["lifecycle", name] + (positionals.isEmpty ? [] : [positionals]) + options.map(\.usage))
            .joined(separator: " ")
    }

    /// The usage block of `--help`: `usage: ` and one usage per syntax, each wrapped at `width` with its
    /// continuation lines indented under its arguments.
    static func usageBlock(_ syntaxes: [CommandSyntax], width: Int = 110) -> String {
        var lines: [String] = []
        for (index, syntax) in syntaxes.enumerated() {
            let lead = index == 0 ? "usage: " : "       "
            let head = lead + "lifecycle " + syntax.name
            let indent = String(repeating: " ", count: head.count + 1)
            var line = head
            for word in (syntax.positionals.isEmpty ? [] : [syntax.positionals]) + syntax.options.map(\.usage) {
                if line.count + 1 + word.count > width, line.count > indent.count {
                    lines.append(line)
                    line = indent + word
                } else {
                    line += " " + word
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
