import Foundation
import LifecycleSQL
import Testing

@testable import LifecycleStore

/// One store implementation under test. The contract suite runs once per factory.
///
/// A location is a fresh temporary directory (``withStoreLocation(_:_:)``): SQLite keeps its file there;
/// PostgreSQL derives a scratch schema from its name, on the server named by `LIFECYCLE_TEST_POSTGRES_URL`,
/// and drops it afterwards.
struct StoreFactory: Sendable, CustomTestStringConvertible {
    let name: String
    /// Opens (creating and migrating on first use) the store kept at `location`. Opening the same location
    /// twice must reach the same data: that is how durability across a restart is tested.
    let open: @Sendable (_ location: String) async throws -> any Store
    /// Removes what `open` created outside the location's directory (nothing for SQLite).
    let dispose: @Sendable (_ location: String) async -> Void

    var testDescription: String { name }

    static let sqlite = StoreFactory(
        name: "SQLite", open: { directory in try await SQLiteStore.open(path: directory + "/lifecycle.sqlite") },
        dispose: { _ in })

    /// The environment variable naming a PostgreSQL server the tests may create and drop schemas on.
    static let postgresVariable = "LIFECYCLE_TEST_POSTGRES_URL"

    /// The server URL for the PostgreSQL runs, or nil (printing why) when the variable is unset.
    static let postgresURL: String? = {
        let url = ProcessInfo.processInfo.environment[postgresVariable] ?? ""
        if url.isEmpty {
            print("PostgreSQL store tests skipped: \(postgresVariable) is not set (scripts/with-postgres.sh sets it)")
            return nil
        }
        return url
    }()

    /// Few connections per store: many tests run at once against one server.
    static func postgresConfiguration(schema: String) -> PostgresStoreConfiguration {
        PostgresStoreConfiguration(connectionCount: 2, schema: schema, reconnectInitialDelayMilliseconds: 20)
    }

    /// `lifecycle_test_` and the directory's UUID in lower-case hex: unique per location, a valid schema name.
    static func postgresSchema(for location: String) -> String {
        let name = location.split(separator: "/").last.map(String.init) ?? location
        let uuid = name.lowercased().unicodeScalars.filter {
            ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
        return "lifecycle_test_" + String(String.UnicodeScalarView(uuid.suffix(32)))
    }

    static let postgres: StoreFactory? = postgresURL.map { url in
        StoreFactory(
            name: "PostgreSQL",
            open: { location in
                try await PostgresStore.open(
                    url: url, configuration: postgresConfiguration(schema: postgresSchema(for: location)))
            },
            dispose: { location in
                let schema = postgresSchema(for: location)
                _ = try? await PostgresBlocking.run { () throws(StoreError) in
                    do {
                        let connection = try PostgresConnection(url: url, schema: nil, connectTimeoutSeconds: 5)
                        try connection.execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
                        connection.close()
                    } catch {
                        throw StoreError(converting: error)
                    }
                }
            })
    }

    static let all: [StoreFactory] = [.sqlite] + (postgres.map { [$0] } ?? [])
}

/// Runs `body` with a fresh location for `factory`, and removes it afterwards, whatever happens.
func withStoreLocation<T>(_ factory: StoreFactory, _ body: (_ location: String) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        do {
            let result = try await body(directory.path)
            await factory.dispose(directory.path)
            return result
        } catch {
            await factory.dispose(directory.path)
            throw error
        }
    }
}

/// Runs `body` with a store in a fresh location, and closes it and removes the location afterwards.
func withStore<T>(
    _ factory: StoreFactory, _ body: (any Store, _ location: String) async throws -> T
) async throws -> T {
    try await withStoreLocation(factory) { location in
        let store = try await factory.open(location)
        do {
            let result = try await body(store, location)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}
