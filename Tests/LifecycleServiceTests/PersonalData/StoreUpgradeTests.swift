import Foundation
import LifecycleCore
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleStore

/// A store written by the release before sealing (schema version 8: the relay e-mail and the raw JWS in the
/// clear) is converted on upgrade: every value sealed under its subject's data key, the clear-text columns
/// nulled, and the database rewritten so no clear-text byte is left in free space.
@Suite("Upgrading a store that kept personal values in the clear", .serialized)
struct StoreUpgradeTests {
    /// Written by `lifecycle` built at 709d9d4 (see the fixture's README.md): alice's e-mail event, bob's
    /// e-mail event and deletion, bob erased by that release's `self` step.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/release-709d9d4/lifecycle.sqlite").path
    static let alice = "001111.7a1ce00000000000000000000000a1ce.0101"
    static let aliceEmail = "alice.k3b7x9@privaterelay.appleid.com"
    static let bob = "002222.b0b00000000000000000000000000b0b.0202"
    static let bobEmail = "bob.q2m1z8@privaterelay.appleid.com"

    @Test(
        "a SQLite store of release 709d9d4 is sealed by migrate: no clear-text e-mail or JWS in any file, alice's e-mail opens, bob stays erased"
    )
    func sqliteUpgrade() async throws {
        let harness = try ServiceHarness()
        let path = harness.directory.file("lifecycle.sqlite")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
        let original = try ForensicScan.files(in: harness.directory.path)
        #expect(!ForensicScan.filesContaining(Self.aliceEmail, in: original).isEmpty, "the fixture has it in the clear")
        let old = try SQLiteConnection(path: path, role: .reader, busyTimeoutMilliseconds: 1000)
        let version = try old.queryInt64("SELECT max(version) FROM schema_migrations")
        var tokens: [String] = []
        try old.forEachRow("SELECT raw_jws FROM notifications WHERE raw_jws IS NOT NULL") { tokens.append($0.text(0)) }
        old.close()
        #expect(version == 8)
        #expect(tokens.count == 1, "alice's token is kept, bob's was erased by the old release")

        let migrate = try await KeyRotationTests.run(["migrate", "--config", harness.configurationFile])
        #expect(migrate.status == 0, "\(migrate.errors)")
        #expect(migrate.output.contains("schema version \(SQLiteStore.schemaVersion), personal values sealed"))

        let files = try ForensicScan.files(in: harness.directory.path)
        #expect(ForensicScan.filesContaining(Self.aliceEmail, in: files).isEmpty)
        #expect(ForensicScan.filesContaining(Self.bobEmail, in: files).isEmpty)
        for token in tokens { #expect(ForensicScan.filesContaining(token, in: files).isEmpty) }
        let alice = try await KeyRotationTests.export(Self.alice, config: harness.configurationFile, app: "demo")
        #expect(alice.values.contains(Self.aliceEmail) && alice.values.contains(tokens[0]))
        let bob = try await KeyRotationTests.export(Self.bob, config: harness.configurationFile, app: "demo")
        #expect(bob.values.isEmpty, "nothing of bob's to seal: he stays erased")

        let again = try await KeyRotationTests.run(["migrate", "--config", harness.configurationFile])
        #expect(again.status == 0)
        let converted = try SQLiteConnection(path: path, role: .reader, busyTimeoutMilliseconds: 1000)
        defer { converted.close() }
        #expect(try converted.queryInt64("SELECT count(*) FROM store_conversions") == 1)
        #expect(
            try converted.queryInt64(
                "SELECT count(*) FROM notifications WHERE email IS NOT NULL OR raw_jws IS NOT NULL")
                == 0)
    }

    @Test(
        "a PostgreSQL store at schema version 8 with clear-text rows is sealed by migrate, and its inbox's file keeps no clear-text byte",
        .enabled(
            if: HarnessStore.postgresServer != nil,
            "needs a PostgreSQL server: set LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh sets it)"))
    func postgresUpgrade() async throws {
        let harness = try ServiceHarness(store: .postgres)
        let database = try #require(harness.postgresDatabase)
        let token = "eyJraWQiOiJvbGQiLCJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLXRoZS1vbGQtcmVsZWFzZQ"
        try await database.withConnection { connection throws(PostgresError) in
            do {
                try PostgresMigrator(migrations: Array(PostgresSchema.migrations.prefix(8))).migrate(
                    connection, schema: nil)
            } catch {
                throw PostgresError(sqlState: "XX000", message: "\(error)")
            }
            // The row as the release before sealing wrote it (its insert statement, clear-text columns).
            _ = try connection.query(
                """
                INSERT INTO notifications (
                    app, jti, audience, issuer, sub, type, event_time_ms, is_private_email, email, issued_at_ms,
                    expires_at_ms, key_id, accepted_expired, received_at_ms, body_sha256, raw_jws, source
                ) VALUES ('shop', 'jti-old-1', 'com.example.shop', 'https://appleid.apple.com', $1, 'email-enabled',
                    1759309200000, true, $2, 1759309200000, 1759395600000, 'kid', false, 1759309201000,
                    'abc', $3, 'notification')
                """, [Self.alice, Self.aliceEmail, token])
        }
        let migrate = try await KeyRotationTests.run(["migrate", "--config", harness.configurationFile])
        #expect(migrate.status == 0, "\(migrate.errors)")
        let (clear, sealed, inFile) = try await database.withConnection { connection throws(PostgresError) in
            try connection.execute("CHECKPOINT")
            let clear = try connection.queryInt64(
                "SELECT count(*) FROM notifications WHERE email IS NOT NULL OR raw_jws IS NOT NULL")
            let sealed = try connection.queryInt64(
                "SELECT count(*) FROM notifications WHERE sealed_email IS NOT NULL AND sealed_raw_jws IS NOT NULL")
            let inFile = try connection.queryInt64(
                "SELECT position($1::bytea IN pg_read_binary_file(pg_relation_filepath('notifications')))",
                [Array(Self.aliceEmail.utf8)])
            return (clear, sealed, inFile)
        }
        #expect(clear == 0 && sealed == 1)
        #expect(inFile == 0, "VACUUM FULL rewrote the inbox: the clear-text e-mail is not in its file")
        let alice = try await KeyRotationTests.export(Self.alice, config: harness.configurationFile)
        #expect(alice.values == [Self.aliceEmail, token])
    }
}
