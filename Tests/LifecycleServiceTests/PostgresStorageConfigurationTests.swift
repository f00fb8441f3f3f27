import LifecycleCore
import Testing

@testable import LifecycleEngine

/// Selecting the PostgreSQL store from `lifecycle.json`, and keeping its password out of logs.
@Suite("Storage URL: PostgreSQL")
struct PostgresStorageConfigurationTests {
    @Test(
        "postgres:// and postgresql:// URLs are accepted as written",
        arguments: [
            "postgres://lifecycle@db.internal/lifecycle?sslmode=verify-full", "postgresql://u@127.0.0.1:5432/x",
        ])
    func accepted(url: String) throws {
        let document: JSONValue = [
            "apps": [["id": "shop", "clientIds": ["com.example.shop"]]], "storage": ["url": .string(url)],
        ]
        let configuration = try ServiceConfiguration.parse(document, file: "lifecycle.json", baseDirectory: "/etc")
        #expect(configuration.storage.url == url)
        #expect(configuration.storage.sqlitePath == nil)
    }

    @Test(
        "a password in the URL never reaches what is shown",
        arguments: [
            ("postgres://app:hunter2@db:5432/lc?sslmode=require", "postgres://app:***@db:5432/lc?sslmode=require"),
            (
                "postgresql://db/lc?user=app&password=hunter2&sslmode=require",
                "postgresql://db/lc?user=app&password=***&sslmode=require"
            ),
            ("postgres://app@db/lc", "postgres://app@db/lc"),
            ("sqlite:/var/lib/lifecycle.sqlite", "sqlite:/var/lib/lifecycle.sqlite"),
        ])
    func redacted(url: String, shown: String) {
        let storage = StorageConfiguration(url: url, busyTimeoutMilliseconds: 5_000, maxBatch: 256)
        #expect(storage.redactedURL == shown)
        #expect(!storage.redactedURL.contains("hunter2"))
    }
}
