import LifecycleCore
import LifecycleReconcile
import LifecycleReports

/// The reconcile CSV record reader (RFC 4180 with a header row), over bytes as it reads a file.
///
/// Properties: every record has a non-empty sub and non-negative sessions; no line beyond the reader's
/// limit is read; the fields of each line, written back with every field quoted, split into the same fields;
/// with a `provider` column, each record's sub maps to its provider's account key (``RecordKeysProperty``).
enum CSVRecordsTarget {
    static let target = FuzzTarget(
        name: "csv-records",
        summary: "CSV records: sane records, line limit honoured, fields survive quote-all re-encoding",
        check: check)

    static let maximumLineLength = 512

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        var lines = LineReader(bytes: bytes, source: "fuzz.csv", maximumLineLength: maximumLineLength)
        while let line = try? lines.nextLine() {
            try require(line.count <= maximumLineLength, "a line of \(line.count) bytes passed the limit")
            guard let fields = try? CSVRecordReader.fields(line, source: "fuzz.csv", line: lines.lineNumber),
                String(validating: Array(line), as: UTF8.self) != nil
            else { continue }
            // Quoted as the report writer quotes (ReportCSVRenderer.field), forcing quotes on every field.
            let quoted = fields.map { field in
                let written = ReportCSVRenderer.field(field + ",").unicodeScalars
                return String(String.UnicodeScalarView(written.dropLast(2))) + "\""
            }.joined(separator: ",")
            let again = try? CSVRecordReader.fields(Array(quoted.utf8)[...], source: "fuzz.csv", line: 1)
            try require(again == fields, "fields change through quote-all re-encoding")
        }
        guard
            var reader = try? CSVRecordReader(
                lines: LineReader(bytes: bytes, source: "fuzz.csv", maximumLineLength: maximumLineLength),
                source: "fuzz.csv", keys: RecordKeysProperty.keys)
        else { return }
        var subjects: [String] = []
        while let record = try? reader.next() {
            try require(!record.subject.isEmpty, "a record with an empty sub")
            try require((record.sessions ?? 0) >= 0, "a record with negative sessions")
            subjects.append(record.subject)
        }
        try RecordKeysProperty.check(subjects, header: "provider,sub") { text in
            var again = try CSVRecordReader(
                lines: LineReader(bytes: Array(text.utf8), source: "again.csv"), source: "again.csv",
                keys: RecordKeysProperty.keys)
            var records: [AppRecord] = []
            while let record = try again.next() { records.append(record) }
            return records
        } line: { provider, sub in
            "\(ReportCSVRenderer.field(provider)),\(ReportCSVRenderer.field(sub))"
        }
    }
}
