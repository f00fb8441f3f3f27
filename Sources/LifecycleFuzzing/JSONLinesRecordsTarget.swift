import LifecycleCore
import LifecycleReconcile

/// The reconcile JSON Lines record reader, over bytes as it reads a file.
///
/// Properties: every record has a non-empty sub and sessions in 0...Int32.max; the records, written back as
/// JSON Lines, read back as the same records; each record's sub, named again with a provider, maps to that
/// provider's account key (``RecordKeysProperty``).
enum JSONLinesRecordsTarget {
    static let target = FuzzTarget(
        name: "jsonl-records",
        summary: "JSON Lines records: sane records, write-read round trip gives the same records",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        var reader = JSONLinesRecordReader(
            lines: LineReader(bytes: bytes, source: "fuzz.jsonl", maximumLineLength: 512), source: "fuzz.jsonl",
            keys: RecordKeysProperty.keys)
        var records: [AppRecord] = []
        while let record = try? reader.next() {
            try require(!record.subject.isEmpty, "a record with an empty sub")
            try require((0...Int(Int32.max)).contains(record.sessions ?? 0), "sessions out of range")
            records.append(record)
        }
        var text = ""
        for record in records {
            var object: JSONObject = ["sub": .string(record.subject)]
            if let status = record.status { object["status"] = .string(status) }
            if let sessions = record.sessions { object["sessions"] = .integer(Int64(sessions)) }
            text += JSONValue.object(object).serialized() + "\n"
        }
        var again = JSONLinesRecordReader(
            lines: LineReader(bytes: Array(text.utf8), source: "again.jsonl"), source: "again.jsonl")
        var reread: [AppRecord] = []
        do {
            while let record = try again.next() { reread.append(record) }
        } catch {
            throw PropertyFailure("written records do not read back: \(error)")
        }
        try require(reread == records, "records change through write-read")
        try RecordKeysProperty.check(records.map(\.subject), header: nil) { text in
            var again = JSONLinesRecordReader(
                lines: LineReader(bytes: Array(text.utf8), source: "again.jsonl"), source: "again.jsonl",
                keys: RecordKeysProperty.keys)
            var records: [AppRecord] = []
            while let record = try again.next() { records.append(record) }
            return records
        } line: { provider, sub in
            JSONValue.object(["provider": .string(provider), "sub": .string(sub)]).serialized()
        }
    }
}
