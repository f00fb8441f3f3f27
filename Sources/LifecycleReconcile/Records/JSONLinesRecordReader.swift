import LifecycleCore

/// The app's records as JSON Lines: one object per line with `sub` (string, required) and optionally
/// `provider`, `status` (strings) and `sessions` (integer). Blank lines are skipped; anything else malformed is
/// an error naming the line.
package struct JSONLinesRecordReader: AppRecordReader {
    private var lines: LineReader
    private let path: String
    private let keys: AppRecordKeys

    package init(path: String, keys: AppRecordKeys = .appleOnly) throws(RecordSourceError) {
        self.init(lines: try LineReader(path: path), source: path, keys: keys)
    }

    package init(lines: LineReader, source: String, keys: AppRecordKeys = .appleOnly) {
        self.path = source
        self.lines = lines
        self.keys = keys
    }

    package mutating func next() throws -> AppRecord? {
        while let line = try lines.nextLine() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            guard let object = JSONValue.parseIfValid(line), case .object = object else {
                throw RecordSourceError(source: path, line: lines.lineNumber, problem: "not a JSON object")
            }
            return try AppRecordFields.record(
                sub: object["sub"], provider: object["provider"], status: object["status"],
                sessions: object["sessions"], keys: keys, source: path, line: lines.lineNumber)
        }
        return nil
    }
}

/// The field rules shared by every record format.
enum AppRecordFields {
    /// One record; `provider` (absent, null, empty or `apple`: the `sub` is the store's key) maps the `sub`
    /// through `keys`, and a provider the app does not configure is an error naming it and the ones it does.
    static func record(
        sub: JSONValue?, provider: JSONValue? = nil, status: JSONValue?, sessions: JSONValue?,
        keys: AppRecordKeys = .appleOnly, source: String, line: Int
    ) throws(RecordSourceError) -> AppRecord {
        guard let given = sub?.stringValue, !given.isEmpty else {
            throw RecordSourceError(source: source, line: line, problem: "missing or empty \"sub\"")
        }
        let named: String?
        switch provider {
        case nil, .null?: named = nil
        case .string(let text)?: named = text.isEmpty ? nil : text
        default: throw RecordSourceError(source: source, line: line, problem: "\"provider\" must be a string")
        }
        guard let subject = keys.accountKey(provider: named, sub: given) else {
            throw RecordSourceError(
                source: source, line: line,
                problem: "provider \(JSONValue.string(named ?? "").serialized()) is not one of the app's providers "
                    + "(\(keys.names.joined(separator: ", "))): name one of them, or add it to the app's signals")
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
