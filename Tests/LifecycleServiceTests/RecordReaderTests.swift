import Foundation
import LifecycleCore
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleReconcile

@Suite("The app's record exports")
struct RecordReaderTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func write(_ name: String, _ text: String) throws -> String {
        let path = directory.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func readAll<Reader: AppRecordReader>(_ reader: Reader) throws -> [AppRecord] {
        var reader = reader
        var records: [AppRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    @Test("JSON Lines: sub required, status and sessions optional, blank lines skipped")
    func jsonLines() throws {
        let path = try write(
            "records.jsonl",
            """
            {"sub":"b","status":"active","sessions":2}

            {"sub":"a"}\r
            {"sub":"c","status":null,"sessions":0}
            """)
        let records = try readAll(try JSONLinesRecordReader(path: path))
        #expect(
            records == [
                AppRecord(subject: "b", status: "active", sessions: 2), AppRecord(subject: "a"),
                AppRecord(subject: "c", sessions: 0),
            ])
    }

    @Test(
        "JSON Lines: a malformed record names its line",
        arguments: [
            ("{\"sub\":\"a\"}\nnot json\n", "records.jsonl:2: not a JSON object"),
            ("{\"status\":\"x\"}\n", "records.jsonl:1: missing or empty \"sub\""),
            ("{\"sub\":\"a\",\"sessions\":-1}\n", "records.jsonl:1: \"sessions\" must be a whole number ≥ 0"),
        ])
    func jsonLinesErrors(text: String, expected: String) throws {
        let path = try write("records.jsonl", text)
        #expect {
            try readAll(try JSONLinesRecordReader(path: path))
        } throws: { error in
            String(describing: error).hasSuffix(expected)
        }
    }

    static let keys = AppRecordKeys(providers: ["google": .issSub(issuer: "https://accounts.google.com/")])
    static let googleKey = "google:iss_sub:https%3A//accounts.google.com/:7375626A656374"

    @Test("a record naming a provider carries the provider's own sub, read as that provider's account key")
    func providerRecords() throws {
        let jsonl = try write(
            "records.jsonl",
            """
            {"sub":"7375626A656374","provider":"google","status":"deleted"}
            {"sub":"001.a","provider":"apple"}
            {"sub":"001.b","provider":null}
            """)
        let csv = try write(
            "records.csv", "provider,sub,status\r\ngoogle,7375626A656374,deleted\r\napple,001.a,\r\n,001.b,\r\n")
        let expected = [
            AppRecord(subject: Self.googleKey, status: "deleted"), AppRecord(subject: "001.a"),
            AppRecord(subject: "001.b"),
        ]
        #expect(try readAll(try JSONLinesRecordReader(path: jsonl, keys: Self.keys)) == expected)
        #expect(try readAll(try CSVRecordReader(path: csv, keys: Self.keys)) == expected)
    }

    @Test(
        "a record naming a provider the app does not configure is one line naming the file, the line and the providers")
    func unknownProvider() throws {
        let path = try write("records.csv", "sub,provider\r\n001.a,\r\nx,okta\r\n")
        #expect {
            try readAll(try CSVRecordReader(path: path, keys: Self.keys))
        } throws: { error in
            let text = String(describing: error)
            return text.hasSuffix(
                "records.csv:3: provider \"okta\" is not one of the app's providers (apple, google): name one of them, "
                    + "or add it to the app's signals") && !text.contains("\n")
        }
    }

    @Test("a SQLite query with a provider column yields the providers' keys, sorted by the reconciler's external sort")
    func sqliteProviderColumn() throws {
        let path = directory.file("app.sqlite")
        let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000, create: true)
        _ = try database.executeInTransaction(
            [
                "CREATE TABLE users (idp TEXT, idp_sub TEXT)",
                "INSERT INTO users VALUES ('google', '7375626A656374'), ('apple', 'zzz.apple'), ('apple', '000.apple')",
            ], parameters: [:])
        database.close()
        let reader = try SQLiteRecordReader(
            path: path, query: "SELECT idp AS provider, idp_sub AS sub FROM users", keys: Self.keys)
        #expect(reader.namesProviders)
        let sorted = try readAll(try SortedRecordReader(reader)).map(\.subject)
        #expect(sorted == ["000.apple", Self.googleKey, "zzz.apple"])
    }

    @Test("CSV: header names the columns in any order; quoted fields with doubled quotes")
    func csv() throws {
        let path = try write(
            "records.csv",
            "email,Sessions,sub,status\n"
                + "x@example.com,1,\"001.abc.1\",\"deleted, kept \"\"tombstone\"\"\"\n"
                + "y@example.com,,002.def.2,\n")
        let records = try readAll(try CSVRecordReader(path: path))
        #expect(
            records == [
                AppRecord(subject: "001.abc.1", status: "deleted, kept \"tombstone\"", sessions: 1),
                AppRecord(subject: "002.def.2"),
            ])
    }

    @Test("CSV without a sub column is refused with the columns it has")
    func csvWithoutSub() throws {
        let path = try write("records.csv", "user,status\n1,active\n")
        #expect {
            try CSVRecordReader(path: path)
        } throws: { error in
            String(describing: error).contains("header has no \"sub\" column (found: user,status)")
        }
    }

    /// Regression (fuzzing, csv-records): a line that ended inside the buffered chunk was returned whatever
    /// its length; only a line still open at the end of the buffer was held to the limit.
    @Test("a line over the limit is refused wherever it ends: inside a chunk, across chunks, at the end")
    func lineLimitHolds() throws {
        let long = String(repeating: "x", count: LineReader.defaultMaximumLineLength + 1)
        for text in ["sub\n\(long)\nok\n", "sub\n" + String(repeating: "y", count: 70_000) + "\n", "sub\n\(long)"] {
            let path = try write("long-\(text.count).csv", text)
            #expect {
                try readAll(try CSVRecordReader(path: path))
            } throws: { error in
                String(describing: error).contains(".csv:2: line longer than 65536 bytes")
            }
        }
        var short = LineReader(bytes: Array("12345\n123456\n".utf8), source: "b", maximumLineLength: 5)
        #expect(try short.nextLine() == Array("12345".utf8)[...])
        #expect(throws: RecordSourceError.self) { try short.nextLine() }
    }

    @Test("a missing file is one clear line")
    func missingFile() {
        #expect {
            try JSONLinesRecordReader(path: directory.file("absent.jsonl"))
        } throws: { error in
            String(describing: error).contains("absent.jsonl: cannot open for reading")
        }
    }

    @Test("external sort: many runs merge into byte order, the same as sorting in memory", arguments: [1, 3, 7, 1000])
    func externalSort(runSize: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let subjects =
            (0..<200).map { _ in String(UInt64.random(in: 0...999_999, using: &generator)) } + ["Z", "a", "é", "e"]
        let path = try write(
            "unsorted.jsonl", subjects.map { "{\"sub\":\"\($0)\"}" }.joined(separator: "\n"))
        let sorted = try readAll(try SortedRecordReader(try JSONLinesRecordReader(path: path), runSize: runSize))
        #expect(sorted.map(\.subject) == subjects.sorted { SubjectOrder.precedes($0, $1) })
    }
}
