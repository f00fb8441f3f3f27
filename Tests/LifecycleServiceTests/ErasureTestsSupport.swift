import Foundation
import LifecycleCore
import LifecycleSQL
import LifecycleStore
import TestSupport

@testable import LifecycleEngine

/// A service whose app maps every category of a shipped policy to a real SQLite file standing in for the app
/// database (`app-db`) and to `self`, with short retry delays.
struct ErasureScenario {
    static let otherSubject = "009999.fedcba9876543210fedcba9876543210.0202"

    let harness: ServiceHarness
    /// The app database file.
    let appDatabase: String

    /// The repository's `policies/` directory.
    static var shippedPolicies: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("policies").path
    }

    static let defaultStatements: [JSONValue] = [
        "DELETE FROM comments WHERE apple_sub = :sub", "DELETE FROM users WHERE apple_sub = :sub",
    ]
    static let defaultVerify: JSONValue =
        "SELECT (SELECT count(*) FROM users WHERE apple_sub = :sub) + (SELECT count(*) FROM comments WHERE apple_sub = :sub)"

    /// - Parameters:
    ///   - databaseName: the app database file name; `createDatabase: false` leaves it missing.
    ///   - statements, verify: the `app-db` target's SQL.
    init(
        policy: String = "default", databaseName: String = "app.sqlite", createDatabase: Bool = true,
        statements: [JSONValue] = ErasureScenario.defaultStatements, verify: JSONValue = ErasureScenario.defaultVerify,
        maxAttempts: Int64 = 3, runInServe: Bool = false, store: HarnessStore = .sqlite, adminToken: String? = nil
    ) throws {
        var categories: JSONObject = [:]
        for category in DataCategory.allCases { categories[category.canonicalName] = ["app-db", "self"] }
        let app: JSONValue = [
            "id": .string(ServiceHarness.appID), "clientIds": [.string(ServiceHarness.clientID)],
            "policy": .string(policy),
            "targets": [
                "app-db": [
                    "type": "sqlite", "path": .string(databaseName), "statements": .array(statements),
                    "verify": verify,
                ]
            ],
            "categories": .object(categories),
        ]
        harness = try ServiceHarness(
            extraConfiguration: [
                "apps": [app], "policiesDirectory": "policies",
                "erasure": [
                    "maxAttempts": .integer(maxAttempts), "baseDelayMilliseconds": 20, "maxDelayMilliseconds": 40,
                    "pollMilliseconds": runInServe ? 50 : 3_600_000, "leaseSeconds": 30,
                    "runInServe": .bool(runInServe),
                ],
            ], adminToken: adminToken, store: store)
        try FileManager.default.copyItem(atPath: Self.shippedPolicies, toPath: harness.directory.file("policies"))
        appDatabase = harness.directory.file(databaseName)
        if createDatabase { try Self.createAppDatabase(at: appDatabase) }
    }

    /// Two users, each with a profile row and two comments.
    static func createAppDatabase(at path: String, subjects: [String] = [TestFixtures.subject, otherSubject]) throws {
        let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000, create: true)
        defer { database.close() }
        _ = try database.executeInTransaction(
            [
                "CREATE TABLE IF NOT EXISTS users (apple_sub TEXT NOT NULL, name TEXT)",
                "CREATE TABLE IF NOT EXISTS comments (apple_sub TEXT NOT NULL, body TEXT)",
                "CREATE TABLE IF NOT EXISTS executions (apple_sub TEXT NOT NULL)",
            ], parameters: [:])
        for subject in subjects {
            _ = try database.executeInTransaction(
                [
                    "INSERT INTO users VALUES (:sub, 'Kim')", "INSERT INTO comments VALUES (:sub, 'first')",
                    "INSERT INTO comments VALUES (:sub, 'second')",
                ], parameters: ["sub": subject])
        }
    }

    /// Rows of `subject` in the app database's `users` and `comments`.
    static func rows(of subject: String, in path: String) throws -> Int64 {
        let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000)
        defer { database.close() }
        return try database.queryInteger(defaultVerify.stringValue ?? "", parameters: ["sub": subject]) ?? -1
    }

    /// A runner on `store` with its own owner name and a fixed jitter value.
    static func runner(
        configuration: ServiceConfiguration, store: any Store, owner: String, random: Double = 0.999
    ) -> ErasureJobRunner {
        ErasureJobRunner(
            configuration: configuration, store: store,
            log: EventLog(
                level: .error, pseudonymizer: KeyedSubjectPseudonymizer(key: Array("k".utf8)), sink: { _ in }),
            metrics: MetricsRegistry(), clock: SystemClock(), owner: owner, webhookSigners: [:],
            random: { random })
    }
}

/// A job the test expects to exist.
struct MissingJob: Error {}

extension Store {
    func job(_ id: Int64) async throws -> StoredErasureJob {
        guard let job = try await read({ try $0.erasureJob(id: id) }) else { throw MissingJob() }
        return job
    }

    func jobs(app: String = ServiceHarness.appID, subject: String) async throws -> [StoredErasureJob] {
        try await read { try $0.erasureJobs(app: app, subject: subject) }
    }
}
