import Foundation
import LifecycleCore
import LifecycleStore

/// `lifecycle keys rotate` and `keys.rotateEveryDays`: re-wraps every live data key under a new master key and
/// destroys the old one. Afterwards no copy of a data key wrapped by the old master key — a destroyed key in
/// a dead row version, a log segment, a replica or a backup — can be opened by anyone who does not keep a copy
/// of the old master key elsewhere: that is the bound on what remains of an erased subject.
///
/// Crash-safe at every step, because each step is durable before the next starts and a new run (of the
/// command, or `serve` at start) recognises where the last one stopped:
/// 1. the new key is written into the key file beside the old one (temporary file, fsync, rename: the file
///    has both or only the old one). From here both are accepted for opening.
/// 2. every running instance must hold it (they record their key ids at start, reload, every heartbeat, and
///    when they notice the file changed): otherwise the command waits, then stops naming them.
/// 3. the store switches to it (one transaction: it becomes `current`, the old one `retiring`); instances
///    learn it when the store refuses a key wrapped by the old one.
/// 4. data keys still wrapped by the old key are re-wrapped, a batch per transaction, until none is left.
/// 5. the old key is marked `retired` (only when no live data key uses it), then
/// 6. removed from the key file (same durable rewrite), and the store's files are cleaned of the old wrapped
///    forms (``Store/removeRemnants()``).
///
/// A run that finds a `retiring` key resumes at 4; one that finds a key in the file that is neither in force
/// nor retired takes it as the new key and resumes at 2; one that finds a retired key still in the file
/// removes it and stops. With `LIFECYCLE_MASTER_KEY` the operator adds the new key (and later removes the
/// old one) in the environment of every instance: the rotation cannot write it.
package struct MasterKeyRotation {
    static let lockName = "master-key-rotation"

    var store: any Store
    var vault: SubjectKeyVault
    var log: EventLog
    var clock: any LifecycleClock
    var configuration: KeysConfiguration
    /// `reconcile.heartbeatSeconds`: how often each running instance records the keys it holds.
    var heartbeatSeconds: Int
    /// When a `serve` instance rotates, its own id: it records that it holds the new key at once.
    var instance: String?

    package init(
        store: any Store, vault: SubjectKeyVault, log: EventLog, clock: any LifecycleClock,
        configuration: KeysConfiguration,
        heartbeatSeconds: Int, instance: String? = nil
    ) {
        self.store = store
        self.vault = vault
        self.log = log
        self.clock = clock
        self.configuration = configuration
        self.heartbeatSeconds = heartbeatSeconds
        self.instance = instance
    }

    package struct Outcome: Sendable {
        /// The master key in force afterwards.
        var current: String
        /// Master keys retired by this run.
        package var retired: [String]
        /// Data keys re-wrapped.
        var rewrapped: Int
        /// What this run did, in words.
        package var summary: String
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// How recently an instance must have said which keys it holds to count as running: three heartbeats
    /// (`reconcile.heartbeatSeconds`, which the instances on one store share). A fixed window shorter than
    /// the heartbeat would take a running instance for gone and switch to a key it does not hold.
    package static func liveWindowMilliseconds(heartbeatSeconds: Int) -> Int64 { 3 * Int64(heartbeatSeconds) * 1000 }

    /// Runs (or resumes) a rotation under the store's rotation lock; nil when another process holds it.
    package func run(startNew: Bool, progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Outcome?
    {
        try await store.withExclusiveLock(named: Self.lockName) {
            try await rotate(startNew: startNew, progress: progress)
        }
    }

    private func rotate(startNew: Bool, progress: @Sendable (String) -> Void) async throws -> Outcome {
        let keyring = vault.keyring
        if keyring.fileChanged { try keyring.reload() }
        var keys = try await store.read { try $0.masterKeys() }
        guard let inForce = keys.first(where: { $0.state == .current }) else {
            throw Failure(description: "the store has no master key in force; start serve once first")
        }
        var target = inForce.id
        if !keys.contains(where: { $0.state == .retiring }) {
            if try await Self.removeRetiredKeys(keyring: keyring, store: store, log: log) {
                return Outcome(
                    current: inForce.id, retired: [], rewrapped: 0,
                    summary: "completed the interrupted rotation: the retired key left \(keyring.source)")
            }
            let known = Set(keys.map(\.id))
            if let pending = keyring.ids.first(where: { !known.contains($0) }) {
                target = pending
                progress("new master key \(pending) found in \(keyring.source)")
            } else if startNew {
                target = try keyring.addFreshKey()
                progress("added master key \(target) to \(keyring.source)")
            } else {
                return Outcome(current: inForce.id, retired: [], rewrapped: 0, summary: "no rotation in progress")
            }
            if let instance {
                let (ids, now) = (keyring.ids, clock.now())
                try await store.write {
                    try $0.recordInstanceMasterKeys(instance: instance, masterKeyIDs: ids, at: now)
                }
            }
            try await waitForInstances(holding: target, progress: progress)
            let now = clock.now()
            _ = try await store.write { [target] in try $0.switchMasterKey(to: target, at: now) }
            vault.learnCurrent(target)
            progress("master key \(target) is in force; \(inForce.id) is retiring")
        } else {
            progress("resuming the rotation to master key \(target)")
        }
        var rewrapped = 0
        var retired: [String] = []
        for _ in 0..<10 {
            rewrapped += try await rewrapAll(to: target)
            let now = clock.now()
            retired += try await store.write { try $0.retireUnusedMasterKeys(at: now) }
            keys = try await store.read { try $0.masterKeys() }
            if !keys.contains(where: { $0.state == .retiring }) { break }
        }
        guard !keys.contains(where: { $0.state == .retiring }) else {
            throw Failure(description: "data keys are still wrapped by a retiring master key; run keys rotate again")
        }
        progress(
            "re-wrapped \(rewrapped) data keys; retired \(retired.isEmpty ? "none" : retired.joined(separator: ", "))")
        _ = try await Self.removeRetiredKeys(keyring: keyring, store: store, log: log)
        let removal = try await store.removeRemnants()
        log.log(
            .info, "keys.rotated",
            [
                ("current", .string(target)), ("retired", .string(retired.joined(separator: ","))),
                ("rewrapped", .integer(Int64(rewrapped))), ("remnants", .string(removal.description)),
            ])
        return Outcome(
            current: target, retired: retired, rewrapped: rewrapped,
            summary: "master key \(target) in force, \(rewrapped) data keys re-wrapped")
    }

    /// Step 2: every instance seen recently must hold `id` before the store switches to it.
    private func waitForInstances(holding id: String, progress: @Sendable (String) -> Void) async throws {
        let deadline = ContinuousClock.now + .seconds(configuration.instanceWaitSeconds)
        var reported: [String] = []
        while true {
            let since = clock.now().adding(
                milliseconds: -Self.liveWindowMilliseconds(heartbeatSeconds: heartbeatSeconds))
            let lacking = try await store.read { try $0.instanceMasterKeys(since: since) }
                .filter { !$0.masterKeyIDs.contains(id) }.map(\.instance)
            if lacking.isEmpty { return }
            if lacking != reported {
                progress("waiting for \(lacking.joined(separator: ", ")) to load master key \(id)")
                reported = lacking
            }
            guard ContinuousClock.now < deadline else {
                throw Failure(
                    description:
                        "instances \(lacking.joined(separator: ", ")) do not hold master key \(id); copy \(vault.keyring.source) to them (or add the key to \(MasterKeyring.environmentVariable)) and send them SIGHUP, then run keys rotate again"
                )
            }
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    /// Step 4: every live data key not wrapped by `target` is unwrapped and wrapped by it, batch by batch,
    /// in one walk of the key table per old master key.
    private func rewrapAll(to target: String) async throws -> Int {
        var total = 0
        let counts = try await store.read { try $0.liveSubjectKeyCounts() }
        for old in counts.keys.sorted() where old != target {
            var after: StoredSubjectKey? = nil
            while true {
                let batch = try await rewrapBatch(from: old, to: target, after: after)
                total += batch.moved
                guard let last = batch.last else { break }
                after = last
            }
        }
        return total
    }

    /// One batch: read and re-wrap (the crypto runs on the store's reader, outside any write transaction),
    /// then store; a key that changed meanwhile (destroyed, re-wrapped by another run) is left as it is.
    private func rewrapBatch(
        from old: String, to target: String, after: StoredSubjectKey?
    ) async throws -> (moved: Int, last: StoredSubjectKey?) {
        let (vault, limit) = (self.vault, configuration.rewrapBatchSize)
        let pairs = try await store.read { reader in
            try reader.subjectKeys(wrappedBy: old, after: after, limit: limit).map { key in
                let wrapped = try vault.wrap(
                    try vault.unwrap(key), app: key.app, subject: key.subject, scope: key.scope, masterKeyID: target)
                return (key, wrapped)
            }
        }
        guard let last = pairs.last?.0 else { return (0, nil) }
        let moved = try await store.write { writer in
            var count = 0
            for (key, wrapped) in pairs {
                let changed = try writer.rewrapSubjectKey(
                    app: key.app, subject: key.subject, scope: key.scope, fromMasterKeyID: old, wrappedKey: wrapped,
                    masterKeyID: target)
                if changed { count += 1 }
            }
            return count
        }
        return (moved, last)
    }

    /// Step 6: removes from the key file every key the store has retired (the store says no live data key
    /// uses it). With the environment, says which key to remove there. True when the file changed.
    @discardableResult
    package static func removeRetiredKeys(keyring: MasterKeyring, store: any Store, log: EventLog) async throws -> Bool
    {
        let retired = Set(try await store.read { try $0.masterKeys() }.filter { $0.state == .retired }.map(\.id))
        let held = keyring.ids.filter { retired.contains($0) }
        guard !held.isEmpty else { return false }
        guard case .file = keyring.source else {
            log.warning(
                "keys.retired_key_held",
                [("keys", .string(held.joined(separator: ","))), ("fix", "remove them from LIFECYCLE_MASTER_KEY")])
            return false
        }
        let keep = keyring.ids.filter { !retired.contains($0) }.compactMap { keyring.key(id: $0) }
        try keyring.replace(with: keep)
        log.info("keys.retired_key_destroyed", [("keys", .string(held.joined(separator: ",")))])
        return true
    }
}
