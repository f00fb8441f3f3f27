import Testing

@testable import LifecycleStore

/// One store implementation under test. The contract suite runs once per factory, so a PostgreSQL store
/// joins by adding a factory here (its location being a scratch database rather than a file).
struct StoreFactory: Sendable, CustomTestStringConvertible {
    let name: String
    /// Opens (creating and migrating on first use) the store kept at `location`. Opening the same location
    /// twice must reach the same data: that is how durability across a restart is tested.
    let open: @Sendable (_ location: String) async throws -> any Store

    var testDescription: String { name }

    static let sqlite = StoreFactory(name: "SQLite") { directory in
        try await SQLiteStore.open(path: directory + "/lifecycle.sqlite")
    }

    static let all: [StoreFactory] = [.sqlite]
}

/// Runs `body` with a store in a fresh location, and closes it and removes the location afterwards.
func withStore<T>(
    _ factory: StoreFactory, _ body: (any Store, _ location: String) async throws -> T
) async throws -> T {
    try await withTemporaryDirectory { directory in
        let store = try await factory.open(directory.path)
        do {
            let result = try await body(store, directory.path)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}
