/// One problem in a policy file, phrased so an operator can fix it from the message alone: the file, the
/// JSON field path, what is wrong and what to do, on one line (DESIGN.md §7: a policy that does not
/// validate stops start-up).
public struct PolicyValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable machine codes, for tests and scripts.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        case malformedJSON = "malformed_json"
        case wrongType = "wrong_type"
        case missingField = "missing_field"
        case unknownKey = "unknown_key"
        case emptyList = "empty_list"
        case invalidVersion = "invalid_version"
        case unknownTimeZone = "unknown_time_zone"
        case unknownTrigger = "unknown_trigger"
        case unknownCategory = "unknown_category"
        case malformedDuration = "malformed_duration"
        case negativeDuration = "negative_duration"
        case missingWithin = "missing_within"
        case afterExceedsWithin = "after_exceeds_within"
        case erasedAndRetained = "erased_and_retained"
    }

    public var code: Code
    public var file: String
    /// JSON path such as `rules[2].within`; `(root)` for the whole document.
    public var path: String
    public var problem: String
    public var fix: String

    public init(code: Code, file: String, path: String, problem: String, fix: String) {
        self.code = code
        self.file = file
        self.path = path
        self.problem = problem
        self.fix = fix
    }

    /// `file: path: problem; fix: fix`, on one line (control characters from the file are escaped).
    public var description: String { "\(file): \(path): \(problem); fix: \(fix)".escapingControlCharacters }
}

/// Every problem found in one policy file, in document order.
public struct PolicyValidationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public var errors: [PolicyValidationError]

    public init(errors: [PolicyValidationError]) {
        self.errors = errors
    }

    /// One line per problem.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
