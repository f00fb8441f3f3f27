/// A usage mistake on the command line; printed as one line followed by a pointer to `--help`.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Hand-written argument parsing: options are taken by name (`--name value` or `--name=value`), flags by
/// presence, and whatever remains must be the expected positionals. Anything unrecognised is an error that
/// names the offending word, never silently ignored.
public struct CommandArguments: Sendable {
    public let command: String
    private var tokens: [String]

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

    public mutating func flag(_ name: String) -> Bool {
        guard let index = tokens.firstIndex(of: name) else { return false }
        tokens.remove(at: index)
        return true
    }

    /// The value of the last occurrence of `name`, if any.
    public mutating func option(_ name: String) throws(UsageError) -> String? {
        try options(name).last
    }

    /// Every value given for a repeatable option, in order.
    public mutating func options(_ name: String) throws(UsageError) -> [String] {
        var values: [String] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if token == "--" { break }
            if token == name {
                guard index + 1 < tokens.count, tokens[index + 1] != "--" else {
                    throw UsageError("\(name) needs a value")
                }
                values.append(tokens[index + 1])
                tokens.removeSubrange(index...index + 1)
            } else if token.hasPrefix(name + "=") {
                values.append(String(token.dropFirst(name.count + 1)))
                tokens.remove(at: index)
            } else {
                index += 1
            }
        }
        return values
    }

    public mutating func integerOption(_ name: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text), range.contains(value) else {
            throw UsageError(
                "\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// The remaining words, after every option was taken. Fails on a leftover `--option`.
    public mutating func positionals(max: Int) throws(UsageError) -> [String] {
        var result: [String] = []
        var afterSeparator = false
        for token in tokens {
            if !afterSeparator && token == "--" {
                afterSeparator = true
                continue
            }
            if !afterSeparator && token.hasPrefix("-") && token != "-" {
                throw UsageError("unknown option \(token) for 'lifecycle \(command)'")
            }
            result.append(token)
        }
        guard result.count <= max else {
            throw UsageError("unexpected argument '\(result[max])' for 'lifecycle \(command)'")
        }
        tokens = []
        return result
    }

    /// Fails when anything was left unparsed.
    public mutating func finish() throws(UsageError) {
        _ = try positionals(max: 0)
    }
}
