import Foundation
import LifecycleSQL

@testable import LifecycleStore

/// A throwaway database on the server named by `LIFECYCLE_TEST_POSTGRES_URL`, for tests that run `serve`
/// processes (whose configuration has a URL, not a schema): created empty, dropped afterwards.
struct PostgresTestDatabase: Sendable {
    /// The environment variable `scripts/with-postgres.sh` sets.
    static let variable = "LIFECYCLE_TEST_POSTGRES_URL"

    /// The server's URL, or nil (printing why, once per caller) when the variable is unset.
    static func serverURL(for test: String) -> String? {
        let url = ProcessInfo.processInfo.environment[variable] ?? ""
        if url.isEmpty {
            print("\(test) skipped: \(variable) is not set (scripts/with-postgres.sh sets it)")
            return nil
        }
        return url
    }

    let serverURL: String
    let name: String
    /// The server URL with its database replaced by this one (query parameters kept).
    let url: String

    /// Creates `lifecycle_e2e_<random hex>` on the server.
    static func create(serverURL: String) async throws -> PostgresTestDatabase {
        let name = "lifecycle_e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let database = PostgresTestDatabase(
            serverURL: serverURL, name: name, url: replacingDatabase(in: serverURL, with: name))
        try await database.onServer { connection throws(PostgresError) in
            _ = try connection.execute("CREATE DATABASE \"\(name)\"")
        }
        return database
    }

    /// Drops the database, disconnecting whoever is still connected (a killed instance's sessions linger
    /// until the server notices).
    func drop() async {
        let name = self.name
        try? await onServer { connection throws(PostgresError) in
            _ = try connection.execute("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
        }
    }

    /// ``create(serverURL:)`` on the calling thread, for a harness's initialiser.
    static func createBlocking(serverURL: String) throws -> PostgresTestDatabase {
        let name = "lifecycle_e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let connection = try PostgresConnection(url: serverURL, schema: nil, connectTimeoutSeconds: 5)
        defer { connection.close() }
        try connection.execute("CREATE DATABASE \"\(name)\"")
        return PostgresTestDatabase(serverURL: serverURL, name: name, url: replacingDatabase(in: serverURL, with: name))
    }

    /// ``drop()`` on the calling thread, for a harness's deinitialiser.
    func dropBlocking() {
        guard let connection = try? PostgresConnection(url: serverURL, schema: nil, connectTimeoutSeconds: 5) else {
            return
        }
        _ = try? connection.execute("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
        connection.close()
    }

    /// Runs `body` with a connection to this database, on a worker thread.
    func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T
    ) async throws -> T {
        try await Self.connected(url: url, body)
    }

    private func onServer<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T
    ) async throws -> T {
        try await Self.connected(url: serverURL, body)
    }

    private static func connected<T: Sendable>(
        url: String, _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T
    ) async throws -> T {
        try await PostgresBlocking.run { () throws(StoreError) -> T in
            do {
                let connection = try PostgresConnection(url: url, schema: nil, connectTimeoutSeconds: 5)
                defer { connection.close() }
                return try body(connection)
            } catch {
                throw StoreError(converting: error)
            }
        }
    }

    /// `postgres://user@host:port/db?x=y` → the same with `/name` as the path.
    static func replacingDatabase(in url: String, with name: String) -> String {
        let query = url.firstIndex(of: "?").map { String(url[$0...]) } ?? ""
        let base = url.firstIndex(of: "?").map { String(url[..<$0]) } ?? url
        guard let scheme = base.range(of: "://") else { return url }
        let authorityEnd = base[scheme.upperBound...].firstIndex(of: "/") ?? base.endIndex
        return String(base[..<authorityEnd]) + "/" + name + query
    }
}
