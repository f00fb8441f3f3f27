import LifecycleCore

/// The app's records as CSV (RFC 4180) with a header row naming the columns: `sub` (required), `provider`,
/// `status` and `sessions` (optional), in any order, other columns ignored. Fields may be quoted (`"a ""b"""`); a quoted
/// field spanning lines is refused (exports of subs and statuses never need one).
package struct CSVRecordReader: AppRecordReader {
    private var lines: LineReader
    private let path: String
    private var subColumn = 0
    private var statusColumn: Int?
    private var sessionsColumn: Int?
    private var providerColumn: Int?
    private let keys: AppRecordKeys

    init(path: String, keys: AppRecordKeys = .appleOnly) throws(RecordSourceError) {
        try self.init(lines: try LineReader(path: path), source: path, keys: keys)
    }

    package init(lines reader: LineReader, source: String, keys: AppRecordKeys = .appleOnly) throws(RecordSourceError) {
        path = source
        lines = reader
        self.keys = keys
        guard let header = try lines.nextLine() else {
            throw RecordSourceError(source: path, problem: "empty file; expected a header row with a sub column")
        }
        let names = try Self.fields(header, source: path, line: 1).map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let sub = names.firstIndex(of: "sub") else {
            throw RecordSourceError(
                source: path, line: 1, problem: "header has no \"sub\" column (found: \(names.joined(separator: ",")))")
        }
        subColumn = sub
        statusColumn = names.firstIndex(of: "status")
        sessionsColumn = names.firstIndex(of: "sessions")
        providerColumn = names.firstIndex(of: "provider")
    }

    package mutating func next() throws -> AppRecord? {
        while let line = try lines.nextLine() {
            if line.isEmpty { continue }
            let fields = try Self.fields(line, source: path, line: lines.lineNumber)
            func field(_ index: Int?) -> String? {
                guard let index, index < fields.count, !fields[index].isEmpty else { return nil }
                return fields[index]
            }
            var sessions: JSONValue?
            if let text = field(sessionsColumn) {
                guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let count = Int64(text) else {
                    throw RecordSourceError(
                        source: path, line: lines.lineNumber, problem: "\"sessions\" must be a whole number ≥ 0")
                }
                sessions = .integer(count)
            }
            return try AppRecordFields.record(
                sub: field(subColumn).map(JSONValue.string), provider: field(providerColumn).map(JSONValue.string),
                status: field(statusColumn).map(JSONValue.string), sessions: sessions, keys: keys, source: path,
                line: lines.lineNumber)
        }
        return nil
    }

    package static func fields(_ line: ArraySlice<UInt8>, source: String, line number: Int) throws(RecordSourceError)
        -> [String]
    {
        var fields: [String] = []
        var current: [UInt8] = []
        var index = line.startIndex
        var quoted = false
        var fieldStart = true
        while index < line.endIndex {
            let byte = line[index]
            if quoted {
                if byte == 0x22 {
                    if index + 1 < line.endIndex, line[index + 1] == 0x22 {
                        current.append(0x22)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(byte)
                }
            } else if byte == 0x22 && fieldStart {
                quoted = true
            } else if byte == 0x2C {
                fields.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
                fieldStart = true
                index += 1
                continue
            } else {
                current.append(byte)
            }
            fieldStart = false
            index += 1
        }
        if quoted {
            throw RecordSourceError(source: source, line: number, problem: "unterminated quoted field")
        }
        fields.append(String(decoding: current, as: UTF8.self))
        return fields
    }
}
