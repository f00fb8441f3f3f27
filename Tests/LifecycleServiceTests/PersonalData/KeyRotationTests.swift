import Foundation
import LifecycleCore
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleEngine
@testable import LifecycleStore

/// `lifecycle keys rotate` against a running `serve`: what was sealed before opens after; a backup taken
/// before an erasure yields nothing once the master key in force at the erasure is rotated away.
@Suite("Master-key rotation", .serialized)
struct KeyRotationTests {
    let subject = TestFixtures.subject
    let other = ForensicScenario.otherSubject
    let relay = "k3b7x9q2m1@privaterelay.appleid.com"
    let otherRelay = "z8w2n5v4c0@privaterelay.appleid.com"

    @Test(
        "after an erasure and a rotation, data sealed before opens, the old master key is gone, and a backup from before the erasure opens nothing"
    )
    func rotation() async throws {
        let scenario = try await ForensicScenario(
            extraConfiguration: ["keys": ["fileCheckSeconds": 1, "instanceWaitSeconds": 30]])
        let harness = scenario.harness
        let serve = try await scenario.startServe()
        defer { serve.kill(signal: SIGKILL) }
        for (sub, email) in [(subject, relay), (other, otherRelay)] {
            let body = harness.body(
                type: "email-enabled", subject: sub, extra: ["email": .string(email), "is_private_email": "true"])
            #expect(try await harness.post(body, port: scenario.port).status == 200)
        }
        let oldMaster = try #require(try scenario.storedKey(of: subject)).masterKeyID

        // A backup while serve runs, before the erasure (SQLite's VACUUM INTO writes a consistent copy).
        try FileManager.default.createDirectory(
            atPath: harness.directory.file("backup"), withIntermediateDirectories: true)
        let backupPath = harness.directory.file("backup/lifecycle.sqlite")
        let copier = try SQLiteConnection(path: scenario.storePath, role: .maintenance, busyTimeoutMilliseconds: 1000)
        try copier.execute("VACUUM INTO ?", [backupPath])
        copier.close()
        var backupConfig = try #require(
            JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: harness.configurationFile)))?.objectValue)
        backupConfig["storage"] = ["url": "sqlite:backup/lifecycle.sqlite"]
        let backupFile = harness.directory.file("backup.json")
        try Data(JSONValue.object(backupConfig).serialized(pretty: true).utf8).write(
            to: URL(fileURLWithPath: backupFile))

        #expect(
            try await harness.post(harness.body(type: "account-delete", subject: subject), port: scenario.port).status
                == 200)
        try await scenario.waitForCompletedErasure(of: subject)

        let rotate = try await Self.run(["keys", "rotate", "--config", harness.configurationFile])
        #expect(rotate.status == 0, "keys rotate: \(rotate.errors)")
        let keyring = try scenario.vault().keyring
        #expect(keyring.ids.count == 1 && keyring.ids[0] != oldMaster, "the key file holds only the new key")
        let status = try await Self.run(["keys", "status", "--json", "--config", harness.configurationFile])
        let keys = JSONValue.parseIfValid(Array(status.output.utf8))?["masterKeys"]?.arrayValue ?? []
        #expect(keys.first { $0["id"]?.stringValue == oldMaster }?["state"] == "retired")
        #expect(keys.first { $0["state"] == "current" }?["liveDataKeys"] == 1, "the other subject's key, re-wrapped")

        let kept = try await Self.export(other, config: harness.configurationFile)
        #expect(kept.status == 0)
        #expect(kept.values.contains(otherRelay), "sealed before the rotation, opened after it")
        let erased = try await Self.export(subject, config: harness.configurationFile)
        #expect(erased.values.isEmpty && erased.output.contains("destroyed"))

        // The backup from before the erasure, with the keys in force now.
        let fromBackup = try await Self.export(subject, config: backupFile)
        #expect(fromBackup.status == 2)
        #expect(fromBackup.errors.contains(oldMaster) && fromBackup.errors.contains("does not hold"))
        let backup = try SQLiteConnection(path: backupPath, role: .reader, busyTimeoutMilliseconds: 1000)
        defer { backup.close() }
        var wrappedKeys: [StoredSubjectKey] = []
        try backup.forEachRow("SELECT \(SubjectKeyRow.columns) FROM subject_keys") { row throws(SQLiteError) in
            wrappedKeys.append(try SubjectKeyRow.decode(row))
        }
        #expect(wrappedKeys.count == 2 && wrappedKeys.allSatisfy { !$0.isDestroyed }, "the backup has both keys")
        let vault = try scenario.vault()
        for key in wrappedKeys {
            #expect(throws: (any Error).self, "no key in force opens the backup's data keys") { try vault.unwrap(key) }
        }
        serve.kill(signal: SIGTERM)
        #expect(await serve.waitForExit() == 0)
    }

    @Test("a rotation the process did not finish is finished by the next run, without starting another")
    func interruptedRotation() async throws {
        let scenario = try await ForensicScenario()
        let harness = scenario.harness
        let configuration = try harness.configuration
        // Written by the store as a first start would, then: a new key in the file and the switch committed,
        // nothing re-wrapped (the process died there).
        let context = try await ServiceContext.open(configuration: configuration, logSink: { _ in }, environment: [:])
        let candidate = try context.vault.candidate(
            app: "shop", subject: subject, scope: .notifications, at: SystemClock().now())
        _ = try await context.store.write { try $0.insertSubjectKey(candidate.stored) }
        let old = try #require(context.vault.currentMasterKeyID)
        let new = try context.vault.keyring.addFreshKey()
        _ = try await context.store.write { try $0.switchMasterKey(to: new, at: SystemClock().now()) }
        await context.close()

        let resumed = try await Self.run(["keys", "rotate", "--config", harness.configurationFile])
        #expect(resumed.status == 0, "\(resumed.errors)")
        #expect(resumed.errors.contains("resuming the rotation to master key \(new)"))
        let keyring = try scenario.vault().keyring
        #expect(keyring.ids == [new])
        let stored = try #require(try scenario.storedKey(of: subject))
        #expect(stored.masterKeyID == new)
        #expect(try scenario.vault().unwrap(stored) == candidate.dataKey, "the data key survived the re-wrap")
        _ = old
    }

    @Test(
        "with two instances, each with a key file of its own, rotate waits for the one without the new key, names it, and completes once it holds it"
    )
    func twoInstances() async throws {
        let scenario = try await ForensicScenario(
            extraConfiguration: ["keys": ["fileCheckSeconds": 1, "instanceWaitSeconds": 3]])
        let harness = scenario.harness
        let first = try await scenario.startServe()
        defer { first.kill(signal: SIGKILL) }
        let enabled = harness.body(
            type: "email-enabled", subject: subject, extra: ["email": .string(relay), "is_private_email": "true"])
        #expect(try await harness.post(enabled, port: scenario.port).status == 200)

        // The second instance: the same store, its own port, its own copy of the key file.
        let firstKeys = try harness.configuration.secrets.masterKeyFile
        let secondKeys = harness.directory.file("var/secrets/second.key")
        try FileManager.default.copyItem(atPath: firstKeys, toPath: secondKeys)
        var config = try #require(
            JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: harness.configurationFile)))?.objectValue)
        let secondPort = try await WebhookReceiver.unusedPort()
        config["public"] = ["host": "127.0.0.1", "port": .integer(Int64(secondPort))]
        config["secrets"] = ["masterKeyFile": "var/secrets/second.key"]
        let secondFile = harness.directory.file("second.json")
        try Data(JSONValue.object(config).serialized(pretty: true).utf8).write(to: URL(fileURLWithPath: secondFile))
        let secondLog = harness.directory.file("second.log")
        let second = try LifecycleProcess.start(["serve", "--config", secondFile], standardError: secondLog)
        defer { second.kill(signal: SIGKILL) }
        try await LifecycleProcess.waitUntilReady(port: secondPort)

        let refused = try await Self.run(["keys", "rotate", "--config", harness.configurationFile])
        #expect(refused.status == 1)
        #expect(
            refused.errors.contains(":\(second.process.processIdentifier):"), "names the instance: \(refused.errors)")
        #expect(refused.errors.contains("do not hold master key"))
        let old = try #require(try scenario.storedKey(of: subject)).masterKeyID
        #expect(try #require(try scenario.storedKey(of: subject)).masterKeyID == old, "nothing was switched")

        // The operator copies the key file to the second instance, which notices it, and runs rotate again.
        try FileManager.default.removeItem(atPath: secondKeys)
        try FileManager.default.copyItem(atPath: firstKeys, toPath: secondKeys)
        try await Task.sleep(for: .seconds(2))
        let rotated = try await Self.run(["keys", "rotate", "--config", harness.configurationFile])
        #expect(rotated.status == 0, "\(rotated.errors)")
        let new = try #require(try scenario.storedKey(of: subject)).masterKeyID
        #expect(new != old)
        #expect(try MasterKeyring.load(file: firstKeys, environment: [:]).ids == [new])
        #expect(try MasterKeyring.load(file: secondKeys, environment: [:]).ids.sorted() == [old, new].sorted())
        second.kill(signal: SIGHUP)
        let deadline = ContinuousClock.now + .seconds(10)
        while try MasterKeyring.load(file: secondKeys, environment: [:]).ids != [new], ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(
            try MasterKeyring.load(file: secondKeys, environment: [:]).ids == [new],
            "on SIGHUP the second instance destroyed the retired key in its own file")
        // README, "`serve` and SIGHUP": the destruction is said in one reload.master_keys line, naming the keys held.
        let said = await eventually(timeout: .seconds(10)) {
            let text = (try? String(contentsOfFile: secondLog, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").contains { line in
                let event = JSONValue.parseIfValid(Array(line.utf8))
                return event?["event"] == "reload.master_keys" && event?["keys"] == .string(new)
            }
        }
        #expect(said, "\((try? String(contentsOfFile: secondLog, encoding: .utf8))?.suffix(2000) ?? "")")
        // Both instances go on: a known subject (its key re-wrapped) and a new one, on the second instance.
        let again = harness.body(type: "email-disabled", subject: subject, extra: ["email": .string(relay)])
        #expect(try await harness.post(again, port: secondPort).status == 200)
        #expect(
            try await harness.post(harness.body(type: "consent-revoked", subject: other), port: secondPort).status
                == 200)
        for serve in [first, second] { serve.kill(signal: SIGTERM) }
        #expect(await first.waitForExit() == 0)
        #expect(await second.waitForExit() == 0)
    }

    @Test(
        "rotate counts a serve instance as running for three of its heartbeats (reconcile.heartbeatSeconds), so one with a slow heartbeat and without the new key is waited for, not switched past"
    )
    func slowHeartbeat() async throws {
        // serve records the keys it holds at start and then every 250 s; its key file is its own.
        let fixture = try await ServeFixture(
            extra: [
                "reconcile": ["heartbeatSeconds": 250],
                "secrets": ["masterKeyFile": "secrets/serve.key"],
                "keys": ["instanceWaitSeconds": 1, "fileCheckSeconds": 1],
            ])
        let serve = try await fixture.start()
        // The operator's copy of the key file, and a configuration that uses it.
        try FileManager.default.copyItem(
            atPath: fixture.directory.file("secrets/serve.key"), toPath: fixture.directory.file("secrets/cli.key"))
        var config = try #require(
            JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: fixture.configurationFile)))?.objectValue)
        config["secrets"] = ["masterKeyFile": "secrets/cli.key"]
        let cliFile = fixture.directory.file("cli.json")
        try Data(JSONValue.object(config).serialized(pretty: true).utf8).write(to: URL(fileURLWithPath: cliFile))
        let before = try await fixture.lifecycle(["keys", "status", "--json", "--config", cliFile])
        let inForce = JSONValue.parseIfValid(Array(before.output.utf8))?["masterKeys"]?.arrayValue?.first {
            $0["state"] == "current"
        }?["id"]?.stringValue
        #expect(inForce != nil, "\(before)")

        // 200 s after serve's last record: longer than a fixed three minutes, shorter than three heartbeats.
        let rotate = try await fixture.lifecycle(
            ["keys", "rotate", "--config", cliFile], environment: ["LIFECYCLE_CLOCK_OFFSET_SECONDS": "200"])
        #expect(rotate.status == 1, "\(rotate)")
        #expect(rotate.errors.contains(":\(serve.process.processIdentifier):"), "names serve: \(rotate.errors)")
        #expect(rotate.errors.contains("do not hold master key"))
        let after = try await fixture.lifecycle(["keys", "status", "--json", "--config", cliFile])
        let current = JSONValue.parseIfValid(Array(after.output.utf8))?["masterKeys"]?.arrayValue?.first {
            $0["state"] == "current"
        }?["id"]?.stringValue
        #expect(current == inForce, "the store did not switch to a key serve does not hold")
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: subject)).status == 200,
            "serve still seals and stores")
        #expect(await fixture.stop() == [0])
    }

    /// Runs a command in-process; its exit status, standard output and standard error.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let (io, output, errors) = CommandIO.capturing()
        let status = await CommandLineInterface.run(arguments: arguments, io: io)
        return (status, output(), errors())
    }

    /// `account export --json` of one subject: the opened values.
    static func export(_ subject: String, config: String, app: String = "shop") async throws
        -> (status: Int32, values: [String], output: String, errors: String)
    {
        let result = try await run(["account", "export", "--app", app, "--sub", subject, "--json", "--config", config])
        let values =
            JSONValue.parseIfValid(Array(result.output.utf8))?["values"]?.arrayValue?.compactMap {
                $0["value"]?.stringValue
            } ?? []
        return (result.status, values, result.output, result.errors)
    }
}
