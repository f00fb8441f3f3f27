import Foundation
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleService

/// What erasure leaves on disk, read as raw bytes while `lifecycle serve` keeps running (PIPA Art. 21(2):
/// erased personal data must not be recoverable): after a deletion's erasure job completes, no byte of the
/// relay e-mail or of the raw JWS is in any file of the store's directory, and none of the user's rows in the
/// app's SQLite target, `-wal` and `-shm` included.
@Suite("Forensic erasure on SQLite", .serialized)
struct SQLiteForensicErasureTests {
    let subject = TestFixtures.subject
    let relay = "k3b7x9q2m1@privaterelay.appleid.com"
    let otherRelay = "z8w2n5v4c0@privaterelay.appleid.com"

    @Test(
        "after a deletion's erasure completes, neither the relay e-mail nor the raw JWS is in any byte of the store's files or the app database's files, while serve runs"
    )
    func nothingLeftOnDisk() async throws {
        let scenario = try await ForensicScenario()
        let harness = scenario.harness
        let serve = try await scenario.startServe()
        defer { serve.kill(signal: SIGKILL) }
        // The app keeps its own connection open, as a running app server does: the eraser's connection is
        // then not the last one, so closing it does not checkpoint and delete the app's `-wal`.
        let app = try ExternalSQLiteDatabase(path: scenario.appDatabase, busyTimeoutMilliseconds: 1000)
        defer { app.close() }
        #expect(
            try app.queryInteger("SELECT count(*) FROM users WHERE apple_sub = :sub", parameters: ["sub": subject]) == 1
        )

        let enabled = harness.body(
            type: "email-enabled", subject: subject, extra: ["email": .string(relay), "is_private_email": "true"])
        #expect(try await harness.post(enabled, port: scenario.port).status == 200)
        let deletion = harness.body(type: "account-delete", subject: subject)
        #expect(try await harness.post(deletion, port: scenario.port).status == 200)
        let tokens = [try ForensicScenario.jws(in: enabled), try ForensicScenario.jws(in: deletion)]

        try await scenario.waitForCompletedErasure(of: subject)

        let files = try ForensicScan.files(in: harness.directory.path)
        #expect(files.contains { $0.name == "lifecycle.sqlite-wal" }, "serve still runs: its log file is open")
        #expect(
            ForensicScan.filesContaining(relay, in: files).isEmpty,
            "the relay e-mail is in \(ForensicScan.filesContaining(relay, in: files))")
        for token in tokens {
            #expect(
                ForensicScan.filesContaining(token, in: files).isEmpty,
                "a raw JWS is in \(ForensicScan.filesContaining(token, in: files))")
        }
        let appFiles = files.filter { $0.name.hasPrefix(ForensicScenario.appDatabaseName) }
        #expect(
            ForensicScan.filesContaining(subject, in: appFiles).isEmpty,
            "the user's sub is in \(ForensicScan.filesContaining(subject, in: appFiles))")
        // The scan does see what is meant to stay: the other user's row in the app database.
        #expect(!ForensicScan.filesContaining(otherRelay, in: appFiles).isEmpty)

        serve.kill(signal: SIGTERM)
        #expect(await serve.waitForExit() == 0)
    }
}

/// A service whose app keeps its users (with their relay e-mail) in a SQLite file in WAL mode, mapped as the
/// `app-db` target of every category, with the erasure runner inside `serve` polling every 50 ms.
struct ForensicScenario {
    static let appDatabaseName = "app.sqlite"
    static let otherSubject = ErasureScenario.otherSubject

    let harness: ServiceHarness
    let appDatabase: String
    let port: Int

    init(
        otherRelay: String = "z8w2n5v4c0@privaterelay.appleid.com",
        relay: String = "k3b7x9q2m1@privaterelay.appleid.com",
        store: HarnessStore = .sqlite, extraConfiguration: JSONObject = [:]
    ) async throws {
        let scenario = try ErasureScenario(
            databaseName: Self.appDatabaseName, createDatabase: false,
            statements: ["DELETE FROM comments WHERE apple_sub = :sub", "DELETE FROM users WHERE apple_sub = :sub"],
            runInServe: true, store: store)
        harness = scenario.harness
        appDatabase = scenario.appDatabase
        port = try await WebhookReceiver.unusedPort()
        try harness.setPublicPort(port)
        if !extraConfiguration.isEmpty { try harness.merge(extraConfiguration) }
        let database = try ExternalSQLiteDatabase(path: appDatabase, busyTimeoutMilliseconds: 1000, create: true)
        defer { database.close() }
        _ = try database.queryInteger("PRAGMA journal_mode = WAL", parameters: [:])
        _ = try database.executeInTransaction(
            [
                "CREATE TABLE users (apple_sub TEXT NOT NULL, email TEXT, name TEXT)",
                "CREATE TABLE comments (apple_sub TEXT NOT NULL, body TEXT)",
            ], parameters: [:])
        for (subject, email) in [(TestFixtures.subject, relay), (Self.otherSubject, otherRelay)] {
            _ = try database.executeInTransaction(
                [
                    "INSERT INTO users VALUES (:sub, '\(email)', 'Kim')",
                    "INSERT INTO comments VALUES (:sub, 'first words')",
                ], parameters: ["sub": subject])
        }
    }

    /// `lifecycle serve` as its own process, ready.
    func startServe() async throws -> LifecycleProcess {
        let serve = try LifecycleProcess.serve(configurationFile: harness.configurationFile)
        try await LifecycleProcess.waitUntilReady(port: port)
        return serve
    }

    /// The compact JWS inside a notification body.
    static func jws(in body: [UInt8]) throws -> String {
        try #require(JSONValue.parseIfValid(body)?["payload"]?.stringValue)
    }

    /// Waits until the subject's deletion job is completed, reading the store file read-only (a reader in
    /// another process, as an operator's tool would be).
    func waitForCompletedErasure(of subject: String, timeout: Duration = .seconds(20)) async throws {
        let path = harness.directory.file("lifecycle.sqlite")
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try Self.count(
                "SELECT count(*) FROM erasure_jobs WHERE sub = :sub AND status = 'completed'", subject: subject,
                in: path) > 0
            {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the erasure job did not complete within \(timeout)")
    }

    static func count(_ sql: String, subject: String, in path: String) throws -> Int64 {
        let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000, readOnly: true)
        defer { database.close() }
        return try database.queryInteger(sql, parameters: ["sub": subject]) ?? 0
    }
}

extension ServiceHarness {
    /// Replaces top-level members of the configuration file.
    func merge(_ members: JSONObject) throws {
        guard
            var config = JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: configurationFile)))?
                .objectValue
        else { throw HarnessError.notRunning }
        for member in members { config[member.key] = member.value }
        try Data(JSONValue.object(config).serialized(pretty: true).utf8).write(
            to: URL(fileURLWithPath: configurationFile))
    }
}
