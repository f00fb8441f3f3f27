import LifecycleCore
import LifecycleSQL
import LifecycleStore

/// The app's records from its own SQLite database, opened read-only. The configured query is wrapped so the
/// rows come back sorted by `sub` in byte order (SQLite's BINARY collation, which is ``SubjectOrder``) and
/// streamed one at a time: no external sort, no copy of the table in memory. A query that returns a
/// `provider` column yields store keys in another order than its `sub`s (a provider's identifier becomes its
/// key), so its rows come unsorted (``namesProviders``) and the reconciler sorts them (``SortedRecordReader``).
struct SQLiteRecordReader: AppRecordReader {
    private let database: ExternalSQLiteDatabase
    private let rows: ExternalSQLiteDatabase.Rows
    private let path: String
    private var rowNumber = 0
    /// Where `status` and `sessions` are in each row (`sub` is always column 0), found once at open.
    private let statusColumn: Int?
    private let sessionsColumn: Int?
    private let providerColumn: Int?
    private let keys: AppRecordKeys

    /// True when the query returns a `provider` column: the keys do not come in order.
    var namesProviders: Bool { providerColumn != nil }

    /// With `interrupt`, a raised flag ends the query where it is, its sort before the first row included.
    init(
        path: String, query: String, keys: AppRecordKeys = .appleOnly, busyTimeoutMilliseconds: Int32 = 5000,
        interrupt: QueryInterrupt? = nil
    ) throws(RecordSourceError) {
        self.path = path
        self.keys = keys
        do {
            database = try ExternalSQLiteDatabase(
                path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, readOnly: true)
            if let interrupt { database.stop(when: interrupt) }
            let trimmed = query.trimmingTrailingSemicolons
            let columns = try database.rows(trimmed).columns.map { $0.lowercased() }
            guard columns.contains("sub") else {
                throw RecordSourceError(
                    source: path,
                    problem:
                        "the records query returns no \"sub\" column (columns: \(columns.joined(separator: ", ")));"
                        + " alias it, e.g. SELECT apple_sub AS sub …")
            }
            let wanted = ["sub", "status", "sessions", "provider"].filter(columns.contains)
            statusColumn = wanted.firstIndex(of: "status")
            sessionsColumn = wanted.firstIndex(of: "sessions")
            providerColumn = wanted.firstIndex(of: "provider")
            let order = providerColumn == nil ? " ORDER BY sub" : ""
            rows = try database.rows(
                "SELECT \(wanted.joined(separator: ", ")) FROM (\(trimmed)) WHERE sub IS NOT NULL\(order)")
        } catch let error as RecordSourceError {
            throw error
        } catch {
            throw RecordSourceError(source: path, problem: "\(error)")
        }
    }

    mutating func next() throws -> AppRecord? {
        let values: [String?]?
        do {
            values = try rows.next()
        } catch {
            throw RecordSourceError(source: path, line: rowNumber + 1, problem: "\(error)")
        }
        guard let values else { return nil }
        rowNumber += 1
        // Columns by position, decided at open: no per-row dictionary of names (a million rows a night).
        var sessions: JSONValue?
        if let text = sessionsColumn.flatMap({ values[$0] }) {
            guard let count = Int64(text), count >= 0 else {
                throw RecordSourceError(
                    source: path, line: rowNumber, problem: "\"sessions\" must be a whole number ≥ 0")
            }
            sessions = .integer(count)
        }
        return try AppRecordFields.record(
            sub: values[0].map(JSONValue.string), provider: providerColumn.flatMap { values[$0] }.map(JSONValue.string),
            status: statusColumn.flatMap { values[$0] }.map(JSONValue.string), sessions: sessions, keys: keys,
            source: path, line: rowNumber)
    }
}

extension String {
    var trimmingTrailingSemicolons: String {
        var text = Substring(self)
        while let last = text.last, last == ";" || last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
