import LifecycleCore

/// A configuration problem, reported as one line naming the file, the field and the fix.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// Path of the offending field, e.g. `apps[0].clientIds`; empty for the whole file.
    public var field: String
    public var problem: String
    public var fix: String

    public init(file: String, field: String, problem: String, fix: String) {
        self.file = file
        self.field = field
        self.problem = problem
        self.fix = fix
    }

    /// One line: a key or value quoted from the file has its control characters escaped.
    public var description: String {
        let location = field.isEmpty ? file : "\(file): \(field)"
        return (fix.isEmpty ? "\(location): \(problem)" : "\(location): \(problem); \(fix)").escapingControlCharacters
    }
}
