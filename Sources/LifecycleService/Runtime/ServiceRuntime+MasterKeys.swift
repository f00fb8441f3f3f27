import Foundation
import LifecycleCore
import LifecycleStore

/// What `serve` does about master keys: says which it holds (so a rotation elsewhere waits for it), notices a
/// key file rewritten by a rotation, completes a rotation a crash interrupted, and rotates on a schedule
/// (`keys.rotateEveryDays`).
extension ServiceRuntime {
    /// Records this instance's master key ids in the store (start, heartbeat, reload, file change).
    func recordMasterKeys() async throws {
        let (instance, ids, now) = (instanceID, context.vault.keyring.ids, context.clock.now())
        try await context.store.write {
            try $0.recordInstanceMasterKeys(instance: instance, masterKeyIDs: ids, at: now)
        }
    }

    /// SIGHUP, or the key file changed: reads it again, destroys keys the store has retired, and says so.
    func reloadMasterKeys() async {
        let log = context.log
        do {
            let keyring = context.vault.keyring
            try keyring.reload()
            try await MasterKeyRotation.removeRetiredKeys(keyring: keyring, store: context.store, log: log)
            if let current = try await context.store.read({ try $0.masterKeys() }).first(where: { $0.state == .current }
            ),
                keyring.key(id: current.id) != nil
            {
                context.vault.learnCurrent(current.id)
            }
            try await recordMasterKeys()
            log.info("reload.master_keys", [("keys", .string(keyring.ids.joined(separator: ",")))])
        } catch {
            log.log(.error, "reload.master_keys_failed", [("error", .string(String(describing: error)))])
        }
    }

    var rotation: MasterKeyRotation {
        MasterKeyRotation(
            store: context.store, vault: context.vault, log: context.log, clock: context.clock,
            configuration: context.configuration.keys, instance: instanceID)
    }

    func startMasterKeyWork() {
        startBackground { [self] in await watchKeyFile() }
        // A rotation a crash interrupted (a key still retiring) is completed now, whatever the schedule.
        startBackground { [self] in
            do {
                if try await context.store.read({ try $0.masterKeys() }).contains(where: { $0.state == .retiring }) {
                    _ = try await rotation.run(startNew: false)
                }
            } catch {
                context.log.log(.error, "keys.rotation_failed", [("error", .string(String(describing: error)))])
            }
        }
        guard let days = context.configuration.keys.rotateEveryDays else { return }
        guard case .file = context.vault.keyring.source else {
            context.log.warning(
                "keys.rotation_not_scheduled",
                [("reason", "keys.rotateEveryDays needs secrets.masterKeyFile, not LIFECYCLE_MASTER_KEY")])
            return
        }
        startBackground { [self] in await scheduledRotationLoop(everyDays: days) }
    }

    /// Every `keys.fileCheckSeconds`: a rewritten key file (a rotation in another process) is read again.
    private func watchKeyFile() async {
        let interval = Duration.seconds(context.configuration.keys.fileCheckSeconds)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            if context.vault.keyring.fileChanged { await reloadMasterKeys() }
        }
    }

    /// The longest sleep of the rotation schedule between two looks at the key in force.
    static let rotationCheckInterval: Duration = .seconds(3600)

    /// Rotates once the master key in force is `days` old; one instance at a time (the rotation lock).
    private func scheduledRotationLoop(everyDays days: Int) async {
        let period = Int64(days) * 86_400_000
        while !Task.isCancelled {
            var wait = Self.rotationCheckInterval
            do {
                let keys = try await context.store.read { try $0.masterKeys() }
                if let current = keys.first(where: { $0.state == .current }) {
                    let due = current.addedAt.adding(milliseconds: period)
                    let now = context.clock.now()
                    if due <= now {
                        if let outcome = try await rotation.run(startNew: true) {
                            context.log.info("keys.scheduled_rotation", [("summary", .string(outcome.summary))])
                        }
                    } else {
                        wait = min(wait, .milliseconds(due.millisecondsSinceEpoch - now.millisecondsSinceEpoch))
                    }
                }
            } catch {
                context.log.log(.error, "keys.rotation_failed", [("error", .string(String(describing: error)))])
            }
            try? await Task.sleep(for: wait)
        }
    }
}
