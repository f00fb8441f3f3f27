import Testing

/// The store an end-to-end test runs on: the SQLite file of ``ServiceHarness``, or a throwaway PostgreSQL
/// database when `LIFECYCLE_TEST_POSTGRES_URL` is set (without it the PostgreSQL cases are left out and the
/// reason printed once).
enum HarnessStore: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    static let postgresServer: String? = PostgresTestDatabase.serverURL(for: "End-to-end tests on PostgreSQL")

    /// What the end-to-end suites run on here.
    static let available: [HarnessStore] = postgresServer == nil ? [.sqlite] : [.sqlite, .postgres]

    /// Runs `body` with the storage URL for ``ServiceHarness`` (nil: its SQLite file), dropping the PostgreSQL
    /// database afterwards, whatever happens.
    func run<T>(_ body: (_ storageURL: String?) async throws -> T) async throws -> T {
        guard self == .postgres, let server = Self.postgresServer else { return try await body(nil) }
        let database = try await PostgresTestDatabase.create(serverURL: server)
        do {
            let result = try await body(database.url)
            await database.drop()
            return result
        } catch {
            await database.drop()
            throw error
        }
    }
}
