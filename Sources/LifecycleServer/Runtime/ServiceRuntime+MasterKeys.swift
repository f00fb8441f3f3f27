import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// What `serve` does about master keys: says which it holds (so a rotation elsewhere waits for it), holds the
/// keys of a key file rewritten outside a reload, completes a rotation a crash interrupted, and rotates on a
/// schedule (`keys.rotateEveryDays`). On SIGHUP the key file is read with the rest of the configuration
/// (``ServiceRuntime/reload()``); both paths check it against the store first
/// (``SubjectKeyVault/readMasterKeys(checkingAgainst:)``) and keep the keys held when it does not pass.
extension ServiceRuntime {
    /// Records this instance's master key ids in the store (start, heartbeat, reload, file change).
    func recordMasterKeys() async throws {
        let (instance, ids, now) = (instanceID, context.vault.keyring.ids, context.clock.now())
        try await context.store.write {
            try $0.recordInstanceMasterKeys(instance: instance, masterKeyIDs: ids, at: now)
        }
    }

    /// After the vault was given new master keys (a reload, a rewritten key file): destroys in the key file
    /// the keys the store has retired (a rotation another process ran), learns the key in force, records the
    /// ids held, and says so in one `reload.master_keys` line (or `reload.master_keys_failed`).
    func settleMasterKeys(reason: String) async {
        let log = context.log
        do {
            let keyring = context.vault.keyring
            try await MasterKeyRotation.removeRetiredKeys(keyring: keyring, store: context.store, log: log)
            if let current = try await context.store.read({ try $0.masterKeys() }).first(where: { $0.state == .current }
            ),
                keyring.key(id: current.id) != nil
            {
                context.vault.learnCurrent(current.id)
            }
            try await recordMasterKeys()
            log.info(
                "reload.master_keys",
                [("keys", .string(keyring.ids.joined(separator: ","))), ("reason", .string(reason))])
        } catch {
            log.log(.error, "reload.master_keys_failed", [("error", .string(Self.oneLine(error)))])
        }
    }

    var rotation: MasterKeyRotation {
        let configuration = context.configuration
        return MasterKeyRotation(
            store: context.store, vault: context.vault, log: context.log, clock: context.clock,
            configuration: configuration.keys, heartbeatSeconds: configuration.reconcile.heartbeatSeconds,
            instance: instanceID)
    }

    func startMasterKeyWork() {
        startBackground { [self] in await watchKeyFile() }
        startBackground { [self] in await rotationLoop() }
    }

    /// Every `keys.fileCheckSeconds` of the configuration in force: a key file rewritten outside a reload (a
    /// rotation in another process, an operator copying it in) is read, checked against the store and held at
    /// once; a file that does not pass is refused in one `keys.file_refused` line (once per distinct problem)
    /// and the keys held are kept.
    private func watchKeyFile() async {
        var refusal: String?
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(context.configuration.keys.fileCheckSeconds))
            if Task.isCancelled { return }
            guard context.vault.keyring.fileChanged else { continue }
            do {
                let keys = try await context.vault.readMasterKeys(checkingAgainst: context.store)
                context.vault.keyring.install(keys)
                refusal = nil
                await settleMasterKeys(reason: "key file changed")
            } catch {
                let problem = Self.oneLine(error)
                if problem != refusal {
                    context.log.log(.error, "keys.file_refused", [("error", .string(problem))])
                    refusal = problem
                }
            }
        }
    }

    /// The longest sleep of the rotation loop between two looks at the key in force.
    static let rotationCheckInterval: Duration = .seconds(3600)

    /// Master-key rotation in the background. Each round, first a rotation a crash interrupted (a key still
    /// retiring) is completed, whatever the schedule; then, when `keys.rotateEveryDays` of the configuration
    /// in force is set, a rotation starts once the key in force is that many days old — one instance at a
    /// time (the rotation lock: an instance that finds it taken looks again next round). The schedule is read
    /// from the configuration in force and again after each reload, which wakes the loop.
    private func rotationLoop() async {
        var warnedAboutEnvironment = false
        while !Task.isCancelled {
            var wait = Self.rotationCheckInterval
            do {
                let keys = try await context.store.read { try $0.masterKeys() }
                if keys.contains(where: { $0.state == .retiring }) {
                    if let outcome = try await rotation.run(startNew: false) {
                        context.log.info("keys.rotation_completed", [("summary", .string(outcome.summary))])
                    }
                } else if let days = context.configuration.keys.rotateEveryDays,
                    let current = keys.first(where: { $0.state == .current })
                {
                    if case .environment = context.vault.keyring.source {
                        if !warnedAboutEnvironment {
                            context.log.warning(
                                "keys.rotation_not_scheduled",
                                [
                                    (
                                        "reason",
                                        "keys.rotateEveryDays needs secrets.masterKeyFile, not LIFECYCLE_MASTER_KEY"
                                    )
                                ])
                            warnedAboutEnvironment = true
                        }
                    } else {
                        let due = current.addedAt.adding(milliseconds: Int64(days) * 86_400_000)
                        let now = context.clock.now()
                        if due <= now {
                            if let outcome = try await rotation.run(startNew: true) {
                                context.log.info("keys.scheduled_rotation", [("summary", .string(outcome.summary))])
                            }
                        } else {
                            wait = min(
                                wait, .milliseconds(due.millisecondsSinceEpoch - now.millisecondsSinceEpoch))
                        }
                    }
                }
            } catch {
                context.log.log(.error, "keys.rotation_failed", [("error", .string(Self.oneLine(error)))])
            }
            if Task.isCancelled { return }
            await rotationRescheduled.wait(timeout: wait)
        }
    }
}
