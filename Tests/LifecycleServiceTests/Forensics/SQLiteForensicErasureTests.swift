import Foundation
import LifecycleCore
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleEngine
@testable import LifecycleStore

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

        // What must disappear: the data key (wrapped as stored, and in the clear as the master key opens it)
        // and the e-mail sealed under it. While it is kept, the scan finds the wrapped key and the sealed
        // value, never the clear text.
        let stored = try #require(try scenario.storedKey(of: subject))
        let dataKey = try scenario.vault().unwrap(stored)
        let wrapped = try #require(stored.wrappedKey)
        let sealedEmail = try #require(try scenario.sealedEmails(of: subject).first)
        let before = try ForensicScan.files(in: harness.directory.path)
        #expect(!ForensicScan.filesContaining(wrapped, in: before).isEmpty, "the scan sees the stored wrapped key")
        #expect(!ForensicScan.filesContaining(sealedEmail, in: before).isEmpty, "and the sealed e-mail")
        #expect(ForensicScan.filesContaining(relay, in: before).filter { $0.hasPrefix("lifecycle") }.isEmpty)
        #expect(ForensicScan.filesContaining(dataKey, in: before).isEmpty, "a data key is never on disk in the clear")

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
        for (name, needle) in [("wrapped data key", wrapped), ("data key", dataKey), ("sealed e-mail", sealedEmail)] {
            #expect(
                ForensicScan.filesContaining(needle, in: files).isEmpty,
                "the \(name) is in \(ForensicScan.filesContaining(needle, in: files))")
        }
        let key = try #require(try scenario.storedKey(of: subject))
        #expect(key.isDestroyed && key.masterKeyID == stored.masterKeyID, "the key's tombstone names the master key")
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

    var storePath: String { harness.directory.file("lifecycle.sqlite") }

    /// Waits until the subject's deletion job is completed and, with `hygiene`, its `self` step's hygiene is
    /// done, reading the store file read-only (a reader in another process, as an operator's tool would be).
    func waitForCompletedErasure(
        of subject: String, hygiene: Bool = true, timeout: Duration = .seconds(30)
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let completed = try Self.count(
                "SELECT count(*) FROM erasure_jobs WHERE sub = :sub AND status = 'completed'", subject: subject,
                in: storePath)
            let pending = try Self.count(
                """
                SELECT count(*) FROM erasure_steps JOIN erasure_jobs ON erasure_jobs.id = erasure_steps.job_id
                WHERE erasure_jobs.sub = :sub AND erasure_steps.target = 'self'
                    AND (erasure_steps.hygiene IS NULL OR erasure_steps.hygiene = 'pending')
                    AND erasure_jobs.status = 'completed'
                """, subject: subject, in: storePath)
            if completed > 0 && (!hygiene || pending == 0) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the erasure job did not complete\(hygiene ? " with its hygiene" : "") within \(timeout)")
    }

    /// The subject's data key of the notifications scope as stored.
    func storedKey(of subject: String) throws -> StoredSubjectKey? {
        let connection = try SQLiteConnection(path: storePath, role: .reader, busyTimeoutMilliseconds: 1000)
        defer { connection.close() }
        return try connection.firstRow(
            "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE sub = ? AND scope = 'notifications'", [subject]
        ) { row throws(SQLiteError) in try SubjectKeyRow.decode(row) }
    }

    /// The subject's sealed e-mail values as stored.
    func sealedEmails(of subject: String) throws -> [[UInt8]] {
        let connection = try SQLiteConnection(path: storePath, role: .reader, busyTimeoutMilliseconds: 1000)
        defer { connection.close() }
        var values: [[UInt8]] = []
        try connection.forEachRow(
            "SELECT sealed_email FROM notifications WHERE sub = ? AND sealed_email IS NOT NULL", [subject]
        ) { values.append($0.blob(0)) }
        return values
    }

    /// A vault over the master key file the service uses (the configuration's default path).
    func vault() throws -> SubjectKeyVault {
        let configuration = try harness.configuration
        return SubjectKeyVault(
            keyring: try MasterKeyring.load(file: configuration.secrets.masterKeyFile, environment: [:]))
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
