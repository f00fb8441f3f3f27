import LifecycleCore

/// Why the app's records could not be read: the reconciler then exits 2 ("could not run") with this line.
public struct RecordSourceError: Error, Sendable, CustomStringConvertible {
    public var source: String
    /// 1-based line (or row) number, when the problem is in one record.
    public var line: Int?
    public var problem: String

    /// `problem` is kept to one line of ``maximumProblemBytes`` (``Swift/String/quotedForError(maxBytes:)``): it
    /// can quote the source (a header's names, a value).
    public init(source: String, line: Int? = nil, problem: String) {
        self.source = source
        self.line = line
        self.problem = problem.quotedForError(maxBytes: Self.maximumProblemBytes)
    }

    public static let maximumProblemBytes = 1024

    /// One line: control characters from the source (a CSV header, a key) are escaped.
    public var description: String {
        if let line { return "\(source):\(line): \(problem)".escapingControlCharacters }
        return "\(source): \(problem)".escapingControlCharacters
    }
}
