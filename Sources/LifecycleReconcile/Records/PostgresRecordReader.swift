import LifecycleCore
import LifecycleSQL
import LifecycleStore

/// The app's records from its own PostgreSQL database. The configured query is wrapped so the rows come back
/// sorted by `sub` in byte order (`COLLATE "C"`, which is ``SubjectOrder``, whatever the database's default
/// collation) and read through a cursor in a read-only transaction, ``pageSize`` rows at a time: no external
/// sort, no copy of the table in memory. A query with a `provider` column comes unsorted, as in
/// ``SQLiteRecordReader``, for the reconciler to sort.
struct PostgresRecordReader: AppRecordReader {
    /// Rows fetched per round trip. 1 000 keeps memory small and round trips few.
    static let pageSize = 1_000

    private let database: ExternalPostgresDatabase
    private let rows: ExternalPostgresDatabase.Rows
    private let columns: [String]
    /// The source as errors name it: the URL without its password.
    private let source: String
    private var rowNumber = 0
    private let keys: AppRecordKeys

    /// True when the query returns a `provider` column: the keys do not come in order.
    var namesProviders: Bool { columns.contains("provider") }

    /// With `interrupt`, a raised flag cancels the query on the server, its sort before the first row included.
    init(
        url: String, query: String, shownAs source: String, keys: AppRecordKeys = .appleOnly,
        connectTimeoutSeconds: Int = 5, interrupt: QueryInterrupt? = nil
    ) throws(RecordSourceError) {
        self.source = source
        self.keys = keys
        do {
            database = try ExternalPostgresDatabase(url: url, connectTimeoutSeconds: connectTimeoutSeconds)
            if let interrupt { database.stop(when: interrupt) }
            let trimmed = query.trimmingTrailingSemicolons
            let available = try database.columns(of: trimmed).map { $0.lowercased() }
            guard available.contains("sub") else {
                throw RecordSourceError(
                    source: source,
                    problem:
                        "the records query returns no \"sub\" column (columns: \(available.joined(separator: ", ")));"
                        + " alias it, e.g. SELECT apple_sub AS sub …")
            }
            columns = ["sub", "status", "sessions", "provider"].filter(available.contains)
            let selected = columns.map { "records.\($0)::text AS \($0)" }.joined(separator: ", ")
            let order = columns.contains("provider") ? "" : "ORDER BY records.sub::text COLLATE \"C\""
            rows = try database.rows(
                """
                SELECT \(selected) FROM (\(trimmed)) AS records WHERE records.sub IS NOT NULL
                \(order)
                """, pageSize: Self.pageSize)
        } catch let error as RecordSourceError {
            throw error
        } catch {
            throw RecordSourceError(source: source, problem: "\(error)")
        }
    }

    mutating func next() throws -> AppRecord? {
        let values: [String?]?
        do {
            values = try rows.next()
        } catch {
            throw RecordSourceError(source: source, line: rowNumber + 1, problem: "\(error)")
        }
        guard let values else {
            database.close()
            return nil
        }
        rowNumber += 1
        var fields: [String: String?] = [:]
        for (index, name) in columns.enumerated() { fields[name] = values[index] }
        var sessions: JSONValue?
        if let text = fields["sessions"] ?? nil {
            guard let count = Int64(text), count >= 0 else {
                throw RecordSourceError(
                    source: source, line: rowNumber, problem: "\"sessions\" must be a whole number ≥ 0")
            }
            sessions = .integer(count)
        }
        return try AppRecordFields.record(
            sub: (fields["sub"] ?? nil).map(JSONValue.string),
            provider: (fields["provider"] ?? nil).map(JSONValue.string),
            status: (fields["status"] ?? nil).map(JSONValue.string), sessions: sessions, keys: keys, source: source,
            line: rowNumber)
    }
}
