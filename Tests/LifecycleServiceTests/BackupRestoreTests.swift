import AppleNotifications
import Foundation
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleEngine
@testable import LifecycleStore

/// `lifecycle backup`, `lifecycle restore` and `lifecycle reconcile --after-restore`, driven through the real
/// binary next to a real `serve`, and observed from outside: exit statuses, the files, the admin API, and
/// the store file read afterwards.
@Suite("Backups and restores")
struct BackupRestoreTests {
    static let erased = "000123.erasedafterbackup.0001"
    static let kept = "000456.keptsubject.0002"
    static let relay = "erased-relay-77@privaterelay.appleid.com"

    /// A serve with one app whose deletion erases at once through a SQLite app database and `self`.
    static func fixture() async throws -> ServeFixture {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite"))],
            extra: ["erasure": ["pollMilliseconds": 100]])
        try fixture.createAppDatabase("app.sqlite", subjects: [erased, kept])
        return fixture
    }

    static func emailNotification(_ fixture: ServeFixture, subject: String, relay: String) -> [UInt8] {
        let issued = fixture.now
        let event = TestTokenFactory.event(
            type: "email-enabled", subject: subject, eventTime: .integer(issued.millisecondsSinceEpoch),
            extra: ["email": .string(relay), "is_private_email": "true"])
        let claims = TestTokenFactory.claims(
            event: event, audience: ServeFixture.clientID, issuedAt: issued,
            overrides: ["jti": .string(NotificationSigner.makeJTI())])
        return NotificationBody.encode(jws: fixture.tokens.token(claims: claims))
    }

    var database: (ServeFixture) -> String { { $0.directory.file("lifecycle.sqlite") } }

    /// The subject's data keys and sealed values in the store file at `path`, read with a store of its own.
    static func sealedState(path: String, subject: String) async throws
        -> (keys: [StoredSubjectKey], sealed: Int, account: AccountRecord?)
    {
        let store = try await SQLiteStore.open(path: path)
        let result = try await store.read { reader in
            (
                try reader.subjectKeys(app: ServeFixture.appID, subject: subject),
                try reader.sealedValues(app: ServeFixture.appID, subject: subject).count,
                try reader.account(app: ServeFixture.appID, subject: subject)
            )
        }
        await store.close()
        return result
    }

    /// A scratch copy of a backup, so reading it never touches the backup itself.
    static func scratchCopy(of path: String, in fixture: ServeFixture, name: String) throws -> String {
        let copy = fixture.directory.file(name)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return copy
    }

    func waitForSelfStep(_ fixture: ServeFixture, count: Int) async -> Bool {
        await eventually(timeout: .seconds(20)) {
            fixture.logEvents("erasure.step").filter {
                $0["target"]?.stringValue == "self" && $0["status"]?.stringValue == "done"
            }.count >= count
        }
    }

    @Test(
        "a backup taken while serve takes notifications verifies; an account erased after it stays erased through a restore, and serve starts on the restored store"
    )
    func backupThenRestoreKeepsErasure() async throws {
        let fixture = try await Self.fixture()
        try await fixture.start()
        #expect(
            try await fixture.post(Self.emailNotification(fixture, subject: Self.erased, relay: Self.relay)).status
                == 200)
        #expect(try await fixture.post(fixture.notification(type: "email-disabled", subject: Self.kept)).status == 200)

        // Notifications keep arriving while the copy is taken.
        let load = Task {
            var accepted = 0
            for index in 0..<40 {
                let response = try await fixture.post(
                    fixture.notification(type: "email-disabled", subject: "000999.load.\(index)"))
                if response.status == 200 { accepted += 1 }
            }
            return accepted
        }
        try FileManager.default.createDirectory(
            atPath: fixture.directory.file("backups"), withIntermediateDirectories: true)
        let backup = try await fixture.lifecycle(
            ["backup", "backups/store.sqlite", "--config", fixture.configurationFile])
        #expect(try await load.value == 40)
        #expect(backup.status == 0, "\(backup)")
        let backupFile = fixture.directory.file("backups/store.sqlite")
        let manifestBytes = try #require(FileManager.default.contents(atPath: backupFile + ".manifest.json"))
        let manifest = try BackupManifest.parse(Array(manifestBytes)).get()
        let digest = try #require(SHA256.fileDigest(path: backupFile))
        #expect(digest.hex == manifest.sha256 && digest.byteCount == manifest.byteCount)
        #expect(manifest.schemaVersion == SQLiteStore.schemaVersion)
        #expect(backup.output.contains(manifest.id) && backup.output.contains(manifest.sha256))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.file("backups"))
        #expect(leftovers.sorted() == ["store.sqlite", "store.sqlite.manifest.json"], "no partial file stays")

        // The copy is a whole database holding the subject with a live data key and a sealed relay e-mail.
        let copy = try Self.scratchCopy(of: backupFile, in: fixture, name: "inspect.sqlite")
        let inspected = try ExternalSQLiteDatabase(path: copy, busyTimeoutMilliseconds: 1000)
        let integrity = try inspected.rows("PRAGMA integrity_check").next()?.first ?? nil
        inspected.close()
        #expect(integrity == "ok")
        let before = try await Self.sealedState(path: copy, subject: Self.erased)
        #expect(before.keys.count == 1 && before.keys.allSatisfy { !$0.isDestroyed })
        #expect(before.sealed >= 1 && before.account?.state == .linked)

        // Deleted and erased after the backup.
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.erased)).status == 200)
        #expect(await waitForSelfStep(fixture, count: 1), "the self step of the deletion's job ran")

        // Refused while serve holds the store, and the store is left as it was.
        let busy = try await fixture.lifecycle([
            "restore", "backups/store.sqlite", "--config", fixture.configurationFile,
        ])
        #expect(busy.status == 1, "\(busy)")
        #expect(busy.errorLines.count == 1 && busy.errors.contains("serve holds the store"), "\(busy)")

        #expect(await fixture.stop() == [0])
        let journal = try String(contentsOfFile: database(fixture) + "-erasures.jsonl", encoding: .utf8)
        #expect(!journal.contains(Self.erased) && !journal.contains(Self.relay), "the journal holds pseudonyms only")
        #expect(journal.contains("\"kind\":\"erasure\"") && journal.contains(manifest.id))

        let restore = try await fixture.lifecycle(
            ["restore", "backups/store.sqlite", "--config", fixture.configurationFile])
        #expect(restore.status == 0, "\(restore)")
        #expect(restore.output.contains("1 data keys destroyed"), "\(restore)")
        #expect(restore.output.contains("1 accounts put back"), "\(restore)")
        #expect(!FileManager.default.fileExists(atPath: database(fixture) + ".restore-pending"))

        let after = try await Self.sealedState(path: database(fixture), subject: Self.erased)
        #expect(!after.keys.isEmpty && after.keys.allSatisfy(\.isDestroyed), "its data key is destroyed again")
        #expect(after.sealed == 0, "no sealed value of it is left to open")
        #expect(after.account?.state == .deleted)
        let other = try await Self.sealedState(path: database(fixture), subject: Self.kept)
        #expect(other.account?.state == .emailOff, "nobody else changes")
        let files = try ForensicScan.files(in: fixture.directory.path)
        #expect(ForensicScan.filesContaining(Self.relay, in: files).isEmpty)

        try await fixture.start()
        let account = try await fixture.admin("GET", "/v1/apps/\(ServeFixture.appID)/accounts/\(Self.erased)")
        #expect(account.status == 200)
        #expect(account.json?["state"]?.stringValue == "deleted", "\(String(describing: account.json))")
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "restore refuses with one line and exit 1, changing nothing, without the journal, with a journal cut before the backup, with a damaged copy, and serve refuses an unfinished restore"
    )
    func restoreRefuses() async throws {
        let fixture = try await Self.fixture()
        try await fixture.start()
        #expect(
            try await fixture.post(Self.emailNotification(fixture, subject: Self.erased, relay: Self.relay)).status
                == 200)
        let journalPath = database(fixture) + "-erasures.jsonl"
        let journalBeforeBackup = try #require(FileManager.default.contents(atPath: journalPath))
        let backup = try await fixture.lifecycle(["backup", "store.backup", "--config", fixture.configurationFile])
        #expect(backup.status == 0, "\(backup)")
        #expect(await fixture.stop() == [0])
        let storeBefore = try #require(SHA256.fileDigest(path: database(fixture)))
        let journal = try #require(FileManager.default.contents(atPath: journalPath))

        func restore(_ source: String = "store.backup") async throws -> LifecycleProcess.Finished {
            try await fixture.lifecycle(["restore", source, "--config", fixture.configurationFile])
        }

        try FileManager.default.removeItem(atPath: journalPath)
        let missing = try await restore()
        #expect(missing.status == 1 && missing.errorLines.count == 1, "\(missing)")
        #expect(missing.errors.contains("no erasure journal"), "\(missing)")

        try journalBeforeBackup.write(to: URL(fileURLWithPath: journalPath))
        let truncated = try await restore()
        #expect(truncated.status == 1 && truncated.errorLines.count == 1, "\(truncated)")
        #expect(truncated.errors.contains("no line for backup"), "\(truncated)")

        try journal.write(to: URL(fileURLWithPath: journalPath))
        var damaged = try Data(contentsOf: URL(fileURLWithPath: fixture.directory.file("store.backup")))
        damaged[damaged.count / 2] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: fixture.directory.file("damaged.backup")))
        try FileManager.default.copyItem(
            atPath: fixture.directory.file("store.backup.manifest.json"),
            toPath: fixture.directory.file("damaged.backup.manifest.json"))
        let corrupt = try await restore("damaged.backup")
        #expect(corrupt.status == 1 && corrupt.errorLines.count == 1, "\(corrupt)")
        #expect(corrupt.errors.contains("does not match the manifest"), "\(corrupt)")

        try FileManager.default.copyItem(
            atPath: fixture.directory.file("store.backup"), toPath: fixture.directory.file("bare.backup"))
        let noManifest = try await restore("bare.backup")
        #expect(noManifest.status == 1 && noManifest.errors.contains("manifest.json: missing"), "\(noManifest)")

        #expect(try #require(SHA256.fileDigest(path: database(fixture))) == storeBefore, "no refusal changed the store")

        try Data("store.backup\n".utf8).write(to: URL(fileURLWithPath: database(fixture) + ".restore-pending"))
        let serve = try await fixture.lifecycle(["serve", "--config", fixture.configurationFile])
        #expect(serve.status == 2, "\(serve)")
        #expect(serve.errors.contains("has not finished re-applying erasures"), "\(serve)")

        let finished = try await restore()
        #expect(finished.status == 0, "\(finished)")
        try await fixture.start()
        #expect(await fixture.stop() == [0])
    }

    @Test(
        "restore refuses a journal of another store, one begun after the backup, a line that does not parse and a newer schema; backup refuses an existing DEST"
    )
    func restoreRefusesForeignJournals() async throws {
        let fixture = try await Self.fixture()
        try await fixture.start()
        #expect(
            try await fixture.post(Self.emailNotification(fixture, subject: Self.erased, relay: Self.relay)).status
                == 200)
        let backup = try await fixture.lifecycle(["backup", "store.backup", "--config", fixture.configurationFile])
        #expect(backup.status == 0, "\(backup)")
        let again = try await fixture.lifecycle(["backup", "store.backup", "--config", fixture.configurationFile])
        #expect(again.status == 2 && again.errorLines.count == 1, "\(again)")
        #expect(again.errors.contains("exists; back up to a new file name"), "\(again)")
        #expect(await fixture.stop() == [0])
        let storeBefore = try #require(SHA256.fileDigest(path: database(fixture)))
        let journalPath = database(fixture) + "-erasures.jsonl"
        let journal = try String(contentsOfFile: journalPath, encoding: .utf8)
        var lines = journal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let opened = try #require(JSONValue.parseIfValid(Array(lines[0].utf8)))
        let store = try #require(opened["store"]?.stringValue)
        let openedAt = try #require(opened["at"]?.stringValue)

        /// Restores from `store.backup` with the journal's lines as given (and the manifest's text, when given),
        /// then puts the true files back.
        func restore(journal changed: [String], manifest: String? = nil) async throws -> LifecycleProcess.Finished {
            let manifestPath = fixture.directory.file("store.backup.manifest.json")
            let trueManifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
            try changed.joined(separator: "\n").write(toFile: journalPath, atomically: true, encoding: .utf8)
            if let manifest { try manifest.write(toFile: manifestPath, atomically: true, encoding: .utf8) }
            defer {
                try? journal.write(toFile: journalPath, atomically: true, encoding: .utf8)
                try? trueManifest.write(toFile: manifestPath, atomically: true, encoding: .utf8)
            }
            return try await fixture.lifecycle(["restore", "store.backup", "--config", fixture.configurationFile])
        }

        lines[0] = lines[0].replacingOccurrences(of: store, with: "st_0123456789abcdef0123456789abcdef")
        let foreign = try await restore(journal: lines)
        #expect(foreign.status == 1 && foreign.errorLines.count == 1, "\(foreign)")
        #expect(foreign.errors.contains("the journal of store st_0123456789abcdef"), "\(foreign)")

        lines = journal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = lines[0].replacingOccurrences(of: openedAt, with: "2099-01-01T00:00:00.000Z")
        let late = try await restore(journal: lines)
        #expect(late.status == 1 && late.errorLines.count == 1, "\(late)")
        #expect(late.errors.contains("after the backup was taken"), "\(late)")

        lines = journal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Whole JSON but not a journal line: damaged, not torn (a line a crash cut short is skipped wherever it is).
        lines.insert(#"{"kind": "erasure", "subject": 12}"#, at: 1)
        let unparsed = try await restore(journal: lines)
        #expect(unparsed.status == 1 && unparsed.errorLines.count == 1, "\(unparsed)")
        #expect(unparsed.errors.contains("line 2 "), "\(unparsed)")
        #expect(unparsed.errors.contains("cannot be re-applied"), "\(unparsed)")

        let manifest = try String(
            contentsOfFile: fixture.directory.file("store.backup.manifest.json"), encoding: .utf8)
        let version = try #require(
            JSONValue.parseIfValid(Array(manifest.utf8))?["schemaVersion"]?.integerValue)
        let newer = manifest.replacingOccurrences(
            of: #"("schemaVersion"\s*:\s*)\#(version)\b"#, with: "$199999", options: .regularExpression)
        #expect(newer != manifest)
        let future = try await restore(
            journal: journal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            manifest: newer)
        #expect(future.status == 1 && future.errorLines.count == 1, "\(future)")
        #expect(future.errors.contains("schema version 99999 is newer than this build's"), "\(future)")

        #expect(try #require(SHA256.fileDigest(path: database(fixture))) == storeBefore, "no refusal changed the store")
        // A line a crash cut short, then later runs' lines after it: skipped, counted, and the restore goes on.
        lines = journal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.insert(#"{"kind": "erasure", "sub"#, at: 1)
        let torn = try await restore(journal: lines)
        #expect(torn.status == 0, "\(torn)")
        #expect(torn.output.contains("1 torn journal lines skipped"), "\(torn)")
    }

    @Test("on a PostgreSQL store backup and restore refuse with one line pointing at the README's recipe")
    func postgresRefused() async throws {
        let fixture = try await ServeFixture()
        try fixture.updateConfiguration { $0["storage"] = ["url": "postgres://lifecycle@127.0.0.1:1/lifecycle"] }
        for command in [["backup", "store.backup"], ["restore", "store.backup"]] {
            let run = try await fixture.lifecycle(command + ["--config", fixture.configurationFile])
            #expect(run.status == 1 && run.errorLines.count == 1, "\(run)")
            #expect(run.errors.contains("not SQLite") && run.errors.contains("README, Backups"), "\(run)")
            #expect(run.errors.contains(command[0] == "backup" ? "pg_dump" : "pg_restore"), "\(run)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("store.backup")))
    }

    @Test("reconcile --after-restore turns a retained-after-deletion of a restored app database into a new erasure job")
    func reconcileAfterRestore() async throws {
        let fixture = try await ServeFixture(
            apps: [
                ServeFixture.app(
                    erasureTargets: ServeFixture.sqliteTarget("app.sqlite"),
                    records: [
                        "type": "sqlite", "path": "app.sqlite", "query": "SELECT apple_sub AS sub FROM users",
                    ])
            ],
            extra: ["erasure": ["pollMilliseconds": 100]])
        try fixture.createAppDatabase("app.sqlite", subjects: [Self.erased, Self.kept])
        try FileManager.default.copyItem(
            atPath: fixture.directory.file("app.sqlite"), toPath: fixture.directory.file("app-backup.sqlite"))
        try await fixture.start()
        #expect(try await fixture.post(fixture.notification(type: "email-disabled", subject: Self.kept)).status == 200)
        #expect(
            try await fixture.post(fixture.notification(type: "account-delete", subject: Self.erased)).status == 200)
        #expect(await waitForSelfStep(fixture, count: 1))
        #expect(await fixture.stop() == [0])
        #expect(try fixture.usersLeft(Self.erased, in: "app.sqlite") == 0)

        // The app team restores its database from the backup: the erased user is back.
        try FileManager.default.removeItem(atPath: fixture.directory.file("app.sqlite"))
        try FileManager.default.copyItem(
            atPath: fixture.directory.file("app-backup.sqlite"), toPath: fixture.directory.file("app.sqlite"))
        #expect(try fixture.usersLeft(Self.erased, in: "app.sqlite") == 1)

        let asOf = fixture.now.adding(seconds: 40 * 86_400).iso8601
        let reconcile = try await fixture.lifecycle(
            ["reconcile", "--after-restore", "--as-of", asOf, "--json", "--config", fixture.configurationFile])
        #expect(reconcile.status == 1, "a critical finding: \(reconcile)")
        let document = try #require(JSONValue.parseIfValid(Array(reconcile.output.utf8)), "\(reconcile)")
        let codes = document["apps"]?.arrayValue?.first?["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue }
        #expect(codes?.contains("retained-after-deletion") == true, "\(reconcile)")
        let scheduled = document["afterRestore"]?["erasureJobs"]?.arrayValue?.compactMap(\.integerValue) ?? []
        #expect(scheduled.count == 1, "\(reconcile)")

        let jobs = try await fixture.lifecycle(["jobs", "list", "--json", "--config", fixture.configurationFile])
        let listed = JSONValue.parseIfValid(Array(jobs.output.utf8))?["jobs"]?.arrayValue ?? []
        let job = try #require(listed.first { $0["id"]?.integerValue == scheduled.first }, "\(jobs)")
        #expect(job["status"]?.stringValue == "scheduled" || job["status"]?.stringValue == "pending", "\(job)")

        // Run again before serve erased: the finding stands, but the job already waiting gets no twin.
        let again = try await fixture.lifecycle(
            ["reconcile", "--after-restore", "--as-of", asOf, "--json", "--config", fixture.configurationFile])
        let secondDocument = try #require(JSONValue.parseIfValid(Array(again.output.utf8)), "\(again)")
        #expect(secondDocument["afterRestore"]?["erasureJobs"]?.arrayValue == [], "\(again)")
        let relisted = try await fixture.lifecycle(["jobs", "list", "--json", "--config", fixture.configurationFile])
        let jobsAfter = JSONValue.parseIfValid(Array(relisted.output.utf8))?["jobs"]?.arrayValue ?? []
        #expect(jobsAfter.count == listed.count, "\(relisted)")

        // serve runs it at once: the user's rows are gone again (the log file holds both runs' lines).
        try await fixture.start()
        #expect(await waitForSelfStep(fixture, count: 2))
        let gone = await eventually(timeout: .seconds(20)) {
            (try? fixture.usersLeft(Self.erased, in: "app.sqlite")) == 0
        }
        #expect(gone)
        #expect(try fixture.usersLeft(Self.kept, in: "app.sqlite") == 1)
        #expect(await fixture.stop() == [0])
    }
}
