import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// `lifecycle keys status|rotate`: the master keys that wrap the subjects' data keys (``MasterKeyRotation``).
struct KeysCommand: LifecycleCommand {
    static let name = "keys"
    static let summary = "show the master keys, or rotate to a new one and destroy the old"
    static let syntax = [
        CommandSyntax("keys", action: "status", options: [.json, .config, .logLevel]),
        CommandSyntax("keys", action: "rotate", options: [.config, .logLevel]),
    ]
    static let details = """
        Personal values (relay e-mails, raw JWS, Apple tokens) are sealed under one data key per subject,
        stored wrapped by a master key from secrets.masterKeyFile (or LIFECYCLE_MASTER_KEY). Erasure destroys
        the data key. A backup, replica or old log still holds the data key wrapped by the master key of the
        time; rotating the master key away makes every such copy unreadable, unless a copy of the master key
        is kept elsewhere (keep the key file out of the backups). That is the bound on erased data: a
        destroyed key is unrecoverable from every copy once the master key in force at its erasure has been
        rotated away.

        status   the master keys the store knows (in force, retiring, retired, with dates), how many live
                 data keys each wraps, the keys this configuration holds and those running instances hold
        rotate   adds a new key to the key file, waits (keys.instanceWaitSeconds) until every running
                 instance (one heard from within three reconcile.heartbeatSeconds) holds it, switches the store to it, re-wraps every live data key, retires the old
                 key and removes it from the key file. Crash-safe: run it again (or restart serve) to finish
                 an interrupted rotation. With LIFECYCLE_MASTER_KEY, add the new key to the environment of
                 every instance first (openssl rand -hex 32), restart them, run rotate, then remove the old
                 key there. With several instances and a key file each, rotate on one, copy its key file to
                 the others and SIGHUP them when asked, and again after the rotation
        keys.rotateEveryDays makes serve rotate on its own (one instance at a time).

        exit status: 0 done, 1 refused (an instance lacks the new key, another rotation is running),
        2 could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let json = arguments.flag("--json")
        // The action word was checked against the syntax.
        let word = try arguments.positionals(max: 1).first ?? ""
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let (store, vault, log, clock) = try await ServiceContext.openStore(configuration, io: io)
        do {
            let status = try await run(
                word, configuration: configuration, store: store, vault: vault, log: log, clock: clock, json: json,
                io: io)
            await store.close()
            return status
        } catch {
            await store.close()
            throw error
        }
    }

    private static func run(
        _ word: String, configuration: ServiceConfiguration, store: any Store, vault: SubjectKeyVault, log: EventLog,
        clock: any LifecycleClock, json: Bool, io: CommandIO
    ) async throws -> Int32 {
        if word == "status" {
            let (keys, counts, instances) = try await store.read { reader in
                (
                    try reader.masterKeys(), try reader.liveSubjectKeyCounts(),
                    try reader.instanceMasterKeys(
                        since: clock.now().adding(
                            milliseconds: -MasterKeyRotation.liveWindowMilliseconds(
                                heartbeatSeconds: configuration.reconcile.heartbeatSeconds)))
                )
            }
            let document: JSONValue = [
                "source": .string(vault.keyring.source.description),
                "held": .array(vault.keyring.ids.map { .string($0) }),
                "masterKeys": .array(
                    keys.map { key in
                        [
                            "id": .string(key.id), "state": .string(key.state.rawValue),
                            "addedAt": .string(key.addedAt.iso8601),
                            "retiredAt": key.retiredAt.map { .string($0.iso8601) } ?? .null,
                            "liveDataKeys": .integer(Int64(counts[key.id] ?? 0)),
                        ]
                    }),
                "instances": .array(
                    instances.map {
                        ["instance": .string($0.instance), "holds": .array($0.masterKeyIDs.map { .string($0) })]
                    }),
                "rotateEveryDays": configuration.keys.rotateEveryDays.map { .integer(Int64($0)) } ?? .null,
            ]
            if json {
                io.print(document.serialized(pretty: true))
            } else {
                io.print("master keys held by \(vault.keyring.source): \(vault.keyring.ids.joined(separator: ", "))")
                for key in keys {
                    io.print(
                        "\(key.id) \(key.state.rawValue) since \(key.addedAt.iso8601)"
                            + (key.retiredAt.map { ", retired \($0.iso8601)" } ?? "")
                            + ", wraps \(counts[key.id] ?? 0) live data keys")
                }
                for instance in instances {
                    io.print("instance \(instance.instance) holds \(instance.masterKeyIDs.joined(separator: ", "))")
                }
            }
            return ExitStatus.success
        }
        let rotation = MasterKeyRotation(
            store: store, vault: vault, log: log, clock: clock, configuration: configuration.keys,
            heartbeatSeconds: configuration.reconcile.heartbeatSeconds, instance: nil)
        do {
            guard let outcome = try await rotation.run(startNew: true, progress: { io.printError($0) }) else {
                io.printError("lifecycle keys rotate: another rotation holds the lock; try again when it ends")
                return ExitStatus.negative
            }
            io.print(outcome.summary)
            if case .environment = vault.keyring.source, !outcome.retired.isEmpty {
                io.print(
                    "remove \(outcome.retired.joined(separator: ", ")) from \(MasterKeyring.environmentVariable) on every instance"
                )
            }
            return ExitStatus.success
        } catch let failure as MasterKeyRotation.Failure {
            io.printError("lifecycle keys rotate: \(failure.description)")
            return ExitStatus.negative
        }
    }
}
