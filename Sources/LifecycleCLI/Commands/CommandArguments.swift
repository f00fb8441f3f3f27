/// A usage mistake on the command line; printed as one line: the message, then the command's usage when it
/// is known (an option or word the command does not take), else a pointer to `--help`.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The usage line of the command or action the words were given to.
    public var usage: String?
    public init(_ message: String, usage: String? = nil) {
        self.message = message
        self.usage = usage
    }
    public var description: String { message }
}

/// The words after `lifecycle COMMAND`, parsed once against the command's declared syntax
/// (``CommandSyntax``): options by name (`--name value` or `--name=value`), flags by presence, `--` ending
/// the options (every word after it is positional, whatever it looks like), and the rest positional, the
/// first being the action of a command that has actions. Whatever the selected syntax does not declare —
/// an option, a value given to a flag, a missing value or required option, a word too many — is refused
/// with one line naming it and the usage, never ignored.
public struct CommandArguments: Sendable {
    public let command: String
    private let tokens: [String]
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Positional words, the action first when the command has actions.
    private var words: [String] = []
    /// The syntax the words were parsed against (after ``parse(_:)``).
    public private(set) var syntax: CommandSyntax?

    public init(command: String, tokens: [String]) {
        self.command = command
        self.tokens = tokens
    }

    /// True when `--help`/`-h` appears anywhere before a `--`.
    public var wantsHelp: Bool {
        for token in tokens {
            if token == "--" { return false }
            if token == "--help" || token == "-h" { return true }
        }
        return false
    }

    /// Parses the words against the syntax of the action they name (the first positional word), or the only
    /// syntax of a command without actions; returns that syntax.
    @discardableResult
    public mutating func parse(_ syntaxes: [CommandSyntax]) throws(UsageError) -> CommandSyntax {
        // Which names take a value is known from every syntax of the command, so an option before the action
        // word (`jobs --config F list`) reads the same as after it.
        var known: [String: CommandOption] = [:]
        for syntax in syntaxes { for option in syntax.options { known[option.name] = option } }
        var given: [(name: String, value: String?)] = []
        var positional: [String] = []
        var index = 0
        var afterSeparator = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if afterSeparator || token == "-" || !token.hasPrefix("-") {
                positional.append(token)
                continue
            }
            if token == "--" {
                afterSeparator = true
                continue
            }
            if let equals = token.firstIndex(of: "=") {
                given.append((String(token[..<equals]), String(token[token.index(after: equals)...])))
            } else if known[token]?.takesValue == true {
                guard index < tokens.count, tokens[index] != "--" else {
                    throw UsageError(
                        "\(token) needs a value", usage: Self.usage(of: syntaxes, action: positional.first))
                }
                given.append((token, tokens[index]))
                index += 1
            } else {
                given.append((token, nil))
            }
        }

        let selected: CommandSyntax
        var actionWords = positional
        if syntaxes.count == 1, syntaxes[0].action == nil {
            selected = syntaxes[0]
        } else {
            let actions = syntaxes.compactMap(\.action)
            let choices = "say \(Self.list(actions))"
            guard let action = positional.first else { throw UsageError(choices) }
            guard let match = syntaxes.first(where: { $0.action == action }) else {
                throw UsageError("unknown action '\(action)'; \(choices)")
            }
            selected = match
            actionWords.removeFirst()
        }
        let usage = selected.usage
        for (name, value) in given {
            guard let option = selected.option(named: name) else {
                throw UsageError("\(name) is not an option of 'lifecycle \(selected.name)'", usage: usage)
            }
            switch (option.takesValue, value) {
            case (false, let value?):
                throw UsageError("\(name) takes no value, got '\(value)'", usage: usage)
            case (false, nil):
                flags.insert(name)
            case (true, let value?):
                values[name, default: []].append(value)
            case (true, nil):
                throw UsageError("\(name) needs a value", usage: usage)
            }
        }
        for option in selected.options where option.required && values[option.name] == nil {
            throw UsageError("\(option.name) \(option.placeholder ?? "") is required", usage: usage)
        }
        if actionWords.count > selected.positionalCount.upperBound {
            throw UsageError(
                "unexpected argument '\(actionWords[selected.positionalCount.upperBound])' for "
                    + "'lifecycle \(selected.name)'", usage: usage)
        }
        if actionWords.count < selected.positionalCount.lowerBound {
            throw UsageError("'lifecycle \(selected.name)' needs \(selected.positionals)", usage: usage)
        }
        words = positional
        syntax = selected
        return selected
    }

    private static func list(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    private static func usage(of syntaxes: [CommandSyntax], action: String?) -> String? {
        (syntaxes.first { $0.action == action } ?? (syntaxes.count == 1 ? syntaxes.first : nil))?.usage
    }

    /// Whether the flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of the last occurrence of `name`, if any.
    public func option(_ name: String) throws(UsageError) -> String? { values[name]?.last }

    /// Every value given for a repeatable option, in order.
    public func options(_ name: String) throws(UsageError) -> [String] { values[name] ?? [] }

    public func integerOption(_ name: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text), range.contains(value) else {
            throw UsageError(
                "\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), got '\(text)'",
                usage: syntax?.usage)
        }
        return value
    }

    /// The positional words (the action first, for a command with actions); their number was checked
    /// against the syntax, `max` is the most the caller reads.
    public func positionals(max: Int) throws(UsageError) -> [String] {
        guard words.count <= max else {
            throw UsageError("unexpected argument '\(words[max])' for 'lifecycle \(command)'", usage: syntax?.usage)
        }
        return words
    }

    /// Fails when a positional word was given to a command that takes none.
    public func finish() throws(UsageError) {
        _ = try positionals(max: 0)
    }
}
