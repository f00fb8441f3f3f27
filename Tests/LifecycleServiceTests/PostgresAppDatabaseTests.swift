import Foundation
import LifecycleCore
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleReconcile
@testable import LifecycleStore

/// Apps whose own data lives in PostgreSQL: the `postgres` erasure target erases and verifies there, and the
/// reconciler's `postgres` record source reads the app's accounts from there, in `sub` byte order.
@Suite("The app's own PostgreSQL database")
struct PostgresAppDatabaseTests {
    static let server = PostgresTestDatabase.serverURL(for: "PostgreSQL app-database tests")

    /// Runs `body` with a fresh database holding `users` and `comments` for the two subjects, then drops it.
    static func withAppDatabase(_ body: (PostgresTestDatabase) async throws -> Void) async throws {
        let server = try #require(server)
        let database = try await PostgresTestDatabase.create(serverURL: server)
        do {
            _ = try await database.withConnection { connection throws(PostgresError) in
                try connection.execute(
                    """
                    CREATE TABLE users (apple_sub TEXT NOT NULL, name TEXT, state TEXT, live_sessions INTEGER);
                    CREATE TABLE comments (apple_sub TEXT NOT NULL, body TEXT);
                    """)
            }
            try await body(database)
            await database.drop()
        } catch {
            await database.drop()
            throw error
        }
    }

    static func seedUsers(_ database: PostgresTestDatabase, _ subjects: [String]) async throws {
        try await database.withConnection { connection throws(PostgresError) in
            for subject in subjects {
                _ = try connection.command("INSERT INTO users (apple_sub, name) VALUES ($1, 'Kim')", [subject])
                _ = try connection.command("INSERT INTO comments VALUES ($1, 'first'), ($1, 'second')", [subject])
            }
        }
    }

    static func remainingRows(_ database: PostgresTestDatabase, of subject: String) async throws -> Int64 {
        try await database.withConnection { connection throws(PostgresError) in
            try connection.queryInt64(
                """
                SELECT (SELECT count(*) FROM users WHERE apple_sub = $1)
                    + (SELECT count(*) FROM comments WHERE apple_sub = $1)
                """, [subject]) ?? -1
        }
    }

    /// A service whose app maps every category to its PostgreSQL database (`app-db`) and to `self`.
    static func harness(target: JSONValue) throws -> ServiceHarness {
        var categories: JSONObject = [:]
        for category in DataCategory.allCases { categories[category.canonicalName] = ["app-db", "self"] }
        let app: JSONValue = [
            "id": .string(ServiceHarness.appID), "clientIds": [.string(ServiceHarness.clientID)],
            "policy": "default", "targets": ["app-db": target], "categories": .object(categories),
        ]
        let harness = try ServiceHarness(extraConfiguration: [
            "apps": [app], "policiesDirectory": .string(ErasureScenario.shippedPolicies),
            "erasure": [
                "maxAttempts": 3, "baseDelayMilliseconds": 20, "maxDelayMilliseconds": 40,
                "pollMilliseconds": 3_600_000, "runInServe": false,
            ],
        ])
        return harness
    }

    @Test(
        "an account-delete erases the user's rows in the app's PostgreSQL database, verified, and nobody else's",
        .enabled(if: server != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)"))
    func erasesAndVerifies() async throws {
        try await Self.withAppDatabase { database in
            let subject = TestFixtures.subject
            try await Self.seedUsers(database, [subject, ErasureScenario.otherSubject])
            let harness = try Self.harness(target: [
                "type": "postgres", "url": .string(database.url),
                "statements": [
                    "DELETE FROM comments WHERE apple_sub = :sub",
                    // `::` is a cast, not a parameter; the same name twice is one value.
                    "DELETE FROM users WHERE apple_sub = :sub::text AND (name IS NULL OR apple_sub = :sub)",
                ],
                "verify":
                    "SELECT (SELECT count(*) FROM users WHERE apple_sub = :sub) + (SELECT count(*) FROM comments WHERE apple_sub = :sub)",
                "vacuum": ["users", "public.comments"],
            ])
            let service = try await harness.start()
            #expect(try await harness.post(harness.body(type: "account-delete", subject: subject)).status == 200)
            try await service.erasureRunner.runOnce()

            let job = try #require(try await service.context.store.jobs(subject: subject).first)
            #expect(job.status == .completed)
            let step = job.job.steps[0]
            #expect(step.target == "app-db" && step.status == .done)
            #expect(step.evidence.rowsAffected == 3 && step.evidence.verificationCount == 0)
            #expect(step.evidence.hygiene == "VACUUM users, public.comments", "the listed tables were vacuumed")
            #expect(try await Self.remainingRows(database, of: subject) == 0)
            #expect(try await Self.remainingRows(database, of: ErasureScenario.otherSubject) == 3, "nobody else's rows")
            #expect(!harness.log.contains(subject), "logs hold pseudonyms only")
            await harness.stop()
        }
    }

    /// The same target run by the real `serve`'s erasure runner, observed from outside: `jobs list` and the
    /// app's rows.
    @Test(
        "through serve: an account-delete's postgres step erases and verifies the rows, vacuums the tables, and leaves others'",
        .enabled(if: server != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)"))
    func erasesThroughServe() async throws {
        try await Self.withAppDatabase { database in
            let subject = "000444.postgresserve.0001"
            try await Self.seedUsers(database, [subject, ErasureScenario.otherSubject])
            let target: JSONObject = [
                "app-db": [
                    "type": "postgres", "url": .string(database.url),
                    "statements": [
                        "DELETE FROM comments WHERE apple_sub = :sub", "DELETE FROM users WHERE apple_sub = :sub",
                    ],
                    "verify":
                        "SELECT (SELECT count(*) FROM users WHERE apple_sub = :sub) + (SELECT count(*) FROM comments WHERE apple_sub = :sub)",
                    "vacuum": ["users", "comments"],
                ]
            ]
            let fixture = try await ServeFixture(
                apps: [ServeFixture.app(erasureTargets: target)], extra: ["erasure": ["pollMilliseconds": 100]])
            try await fixture.start()
            #expect(
                try await fixture.post(fixture.notification(type: "account-delete", subject: subject)).status == 200)
            @Sendable func step() async -> JSONValue? {
                let listed = try? await fixture.lifecycle([
                    "jobs", "list", "--sub", subject, "--json", "--config", fixture.configurationFile,
                ])
                let job = listed.flatMap { JSONValue.parseIfValid(Array($0.output.utf8))?["jobs"]?.arrayValue?.first }
                return job?["status"] == "completed"
                    ? job?["steps"]?.arrayValue?.first { $0["target"] == "app-db" } : nil
            }
            let completed = await eventually(timeout: .seconds(30)) { await step() != nil }
            #expect(completed, "\(fixture.log.suffix(2000))")
            let done = await step()
            #expect(done?["rows_affected"] == .integer(3), "\(String(describing: done))")
            #expect(done?["verification_count"] == .integer(0))
            #expect(done?["hygiene"] == "VACUUM users, comments")
            #expect(try await Self.remainingRows(database, of: subject) == 0)
            #expect(try await Self.remainingRows(database, of: ErasureScenario.otherSubject) == 3, "nobody else's rows")
            #expect(await fixture.stop() == [0])
        }
    }

    @Test(
        "rows the statements missed make the step unverified, with the count as evidence, never done",
        .enabled(if: server != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)"))
    func leftoverRowsAreUnverified() async throws {
        try await Self.withAppDatabase { database in
            let subject = TestFixtures.subject
            try await Self.seedUsers(database, [subject])
            let harness = try Self.harness(target: [
                "type": "postgres", "url": .string(database.url),
                "statements": ["DELETE FROM users WHERE apple_sub = :sub"],
                "verify": "SELECT count(*) FROM comments WHERE apple_sub = :sub",
            ])
            let service = try await harness.start()
            _ = try await harness.post(harness.body(type: "account-delete", subject: subject))
            try await service.erasureRunner.runOnce()
            let job = try #require(try await service.context.store.jobs(subject: subject).first)
            let step = job.job.steps[0]
            #expect(step.status == .unverified)
            #expect(step.evidence.rowsAffected == 1 && step.evidence.verificationCount == 2)
            await harness.stop()
        }
    }

    @Test(
        "a postgres target without :sub, with a URL that is not postgres:// or a vacuum entry that is not a table name, stops start-up with its field"
    )
    func configurationIsChecked() throws {
        let noSub: JSONValue = [
            "type": "postgres", "url": "postgres://app@db/app", "statements": ["DELETE FROM users"],
        ]
        let noURL: JSONValue = ["type": "postgres", "url": "mysql://db/app", "statements": ["DELETE :sub"]]
        let badTable: JSONValue = [
            "type": "postgres", "url": "postgres://app@db/app", "statements": ["DELETE :sub"],
            "vacuum": ["users; DROP TABLE accounts"],
        ]
        for (target, field) in [(noSub, "statements[0]"), (noURL, "url"), (badTable, "vacuum[0]")] {
            let harness = try Self.harness(target: target)
            #expect {
                _ = try harness.configuration
            } throws: { error in
                "\(error)".contains(field)
            }
        }
    }

    @Test(
        "the reconciler reads the app's records from PostgreSQL, in sub byte order, and finds each discrepancy",
        .enabled(if: server != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)"))
    func reconcilerReadsPostgres() async throws {
        try await Self.withAppDatabase { database in
            try await database.withConnection { connection throws(PostgresError) in
                for row in ReconcilerTests.discrepancyRows {
                    _ = try connection.command(
                        "INSERT INTO users (apple_sub, state, live_sessions) VALUES ($1, $2, $3)",
                        [row.sub, row.status, row.sessions])
                }
                // Not an account: filtered out by the wrapper, never a finding.
                _ = try connection.command("INSERT INTO users (apple_sub, state) VALUES ('', 'active')")
            }
            let scenario = try await ReconcilerTests.Scenario(
                rows: [], source: .jsonl,
                records: [
                    "type": "postgres", "url": .string(database.url),
                    "query":
                        "SELECT NULLIF(apple_sub, '') AS sub, state AS status, live_sessions AS sessions FROM users;",
                ])
            try await ReconcilerTests().seedDiscrepancies(scenario)
            let report = try await scenario.reconcile()
            let found = Set(report.findings.map { "\($0.code.rawValue) \($0.subject ?? "-")" })
            #expect(
                found == [
                    "retained-after-deletion sub-retained", "erasure-overdue sub-retained",
                    "session-after-revocation sub-revoked", "unknown-to-service sub-unknown",
                    "orphan-notification sub-orphan",
                ])
            #expect(report.apps.first?.recordsRead == ReconcilerTests.discrepancyRows.count)
            await scenario.context.close()
        }
    }

    @Test(
        "many records are streamed through the cursor in sub byte order, whatever the database's collation",
        .enabled(if: server != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)"))
    func cursorOrder() async throws {
        try await Self.withAppDatabase { database in
            let subjects = (0..<2_500).map { "sub-\($0)" } + ["Sub-upper", "sub_under", "sub-Z"]
            // ICU's root collation sorts case-insensitively first ("Sub-upper" among the "sub-…"), unlike bytes.
            try await database.withConnection { connection throws(PostgresError) in
                try connection.execute("CREATE TABLE accounts (apple_sub TEXT COLLATE \"und-x-icu\" NOT NULL)")
                _ = try connection.command(
                    "INSERT INTO accounts (apple_sub) SELECT unnest(string_to_array($1, ','))",
                    [subjects.joined(separator: ",")])
            }
            var reader = try PostgresRecordReader(
                url: database.url, query: "SELECT apple_sub AS sub FROM accounts", shownAs: "postgres://test")
            var read: [String] = []
            while let record = try reader.next() { read.append(record.subject) }
            #expect(read.count == subjects.count)
            #expect(read == subjects.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        }
    }

    @Test(
        "a query with a provider column yields each provider's account keys, put in byte order by the external sort",
        .enabled(if: server != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)"))
    func providerColumn() async throws {
        try await Self.withAppDatabase { database in
            _ = try await database.withConnection { connection throws(PostgresError) in
                try connection.execute(
                    """
                    CREATE TABLE logins (idp TEXT, idp_sub TEXT NOT NULL);
                    INSERT INTO logins VALUES ('google', '7375626A656374'), (NULL, 'zzz.apple'), ('apple', '000.apple');
                    """)
            }
            let keys = AppRecordKeys(providers: ["google": .issSub(issuer: "https://accounts.google.com/")])
            let reader = try PostgresRecordReader(
                url: database.url, query: "SELECT idp AS provider, idp_sub AS sub FROM logins",
                shownAs: "postgres://test", keys: keys)
            #expect(reader.namesProviders)
            let sorted = try SortedRecordReader(reader)
            var read: [String] = []
            while let record = try sorted.next() { read.append(record.subject) }
            #expect(read == ["000.apple", "google:iss_sub:https%3A//accounts.google.com/:7375626A656374", "zzz.apple"])
        }
    }
}
