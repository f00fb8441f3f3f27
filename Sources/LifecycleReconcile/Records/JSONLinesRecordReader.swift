import LifecycleCore

/// The app's records as JSON Lines: one object per line with `sub` (string, required) and optionally
/// `status` (string) and `sessions` (integer). Blank lines are skipped; anything else malformed is an error
/// naming the line.
package struct JSONLinesRecordReader: AppRecordReader {
    private var lines: LineReader
    private let path: String

    package init(path: String) throws(RecordSourceError) {
        self.init(lines: try LineReader(path: path), source: path)
    }

    package init(lines: LineReader, source: String) {
        self.path = source
        self.lines = lines
    }

    package mutating func next() throws -> AppRecord? {
        while let line = try lines.nextLine() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            guard let object = JSONValue.parseIfValid(line), case .object = object else {
                throw RecordSourceError(source: path, line: lines.lineNumber, problem: "not a JSON object")
            }
            return try AppRecordFields.record(
                sub: object["sub"], status: object["status"], sessions: object["sessions"], source: path,
                line: lines.lineNumber)
        }
        return nil
    }
}

/// The field rules shared by every record format.
enum AppRecordFields {
    static func record(
        sub: JSONValue?, status: JSONValue?, sessions: JSONValue?, source: String, line: Int
    ) throws(RecordSourceError) -> AppRecord {
        guard let subject = sub?.stringValue, !subject.isEmpty else {
            throw RecordSourceError(source: source, line: line, problem: "missing or empty \"sub\"")
        }
        var record = AppRecord(subject: subject)
        switch status {
        case nil, .null?: break
        case .string(let text)?: record.status = text.isEmpty ? nil : text
        default: throw RecordSourceError(source: source, line: line, problem: "\"status\" must be a string")
        }
        switch sessions {
        case nil, .null?: break
        case .integer(let count)? where count >= 0 && count <= Int64(Int32.max): record.sessions = Int(count)
        default:
            throw RecordSourceError(source: source, line: line, problem: "\"sessions\" must be a whole number ≥ 0")
        }
        return record
    }
}
