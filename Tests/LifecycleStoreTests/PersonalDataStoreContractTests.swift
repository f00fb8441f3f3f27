import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about data keys and master keys (crypto-shredding). Parameterised by
/// ``StoreFactory``.
@Suite("Store contract: sealed personal values")
struct PersonalDataStoreContractTests {
    private var t0: Instant { Fixtures.receivedAt }

    private func key(_ subject: String, master: String = "m1", wrapped: [UInt8] = [1, 2, 3]) -> NewSubjectKey {
        NewSubjectKey(
            app: "shop", subject: subject, scope: .notifications, wrappedKey: wrapped, masterKeyID: master,
            createdAt: t0)
    }

    @Test(
        "a data key is stored once per subject and scope, only under the master key in force",
        arguments: StoreFactory.all)
    func insertOnce(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let none = try await store.write { [t0] writer in
                (try writer.insertSubjectKey(key("a")), try writer.registerMasterKey(id: "m1", at: t0))
            }
            #expect(none.0 == .refused(currentMasterKeyID: nil), "no master key in force yet")
            #expect(none.1 == StoredMasterKey(id: "m1", state: .current, addedAt: t0, retiredAt: nil))
            let second = try await store.write { [t0] in try $0.registerMasterKey(id: "m2", at: t0) }
            #expect(second.id == "m1", "registering never replaces the key in force")

            let value1 = try await store.write { try $0.insertSubjectKey(key("a", wrapped: [7])) }
            #expect(value1 == .inserted)
            let again = try await store.write { try $0.insertSubjectKey(key("a", wrapped: [8])) }
            guard case .existing(let existing) = again else {
                Issue.record("expected the existing key, got \(again)")
                return
            }
            #expect(existing.wrappedKey == [7] && existing.masterKeyID == "m1" && !existing.isDestroyed)
            let refused = try await store.write { try $0.insertSubjectKey(key("b", master: "m0")) }
            #expect(refused == .refused(currentMasterKeyID: "m1"))
            let value2 = try await store.read { try $0.subjectKey(app: "shop", subject: "b", scope: .notifications) }
            #expect(value2 == nil)
        }
    }

    @Test(
        "a destroyed key is replaced only under the key in force, and the master key's rotation re-wraps and retires",
        arguments: StoreFactory.all)
    func destroyReplaceRotate(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            try await store.write { [t0] writer in
                _ = try writer.registerMasterKey(id: "m1", at: t0)
                for subject in ["a", "b", "c"] { _ = try writer.insertSubjectKey(key(subject)) }
                _ = try writer.eraseSubjectValues(app: "shop", subject: "c", scopes: [.notifications], at: t0)
            }
            let value3 = try await store.write { try $0.replaceDestroyedSubjectKey(key("a", wrapped: [5])) }
            #expect(value3 == false)
            let value4 = try await store.write { try $0.replaceDestroyedSubjectKey(key("c", master: "m9")) }
            #expect(value4 == false)
            let value5 = try await store.write { try $0.replaceDestroyedSubjectKey(key("c", wrapped: [6])) }
            #expect(value5)
            let value6 = try await store.read { try $0.liveSubjectKeyCounts() }
            #expect(value6 == ["m1": 3])

            let value7 = try await store.write { [t0] in try $0.switchMasterKey(to: "m2", at: t0.adding(seconds: 1)) }
            #expect(value7)
            let value8 = try await store.write { [t0] in try $0.switchMasterKey(to: "m2", at: t0.adding(seconds: 2)) }
            #expect(value8 == false)
            let states = try await store.read { try $0.masterKeys() }.map { "\($0.id):\($0.state.rawValue)" }
            #expect(states == ["m1:retiring", "m2:current"])
            let early = try await store.write { [t0] in try $0.retireUnusedMasterKeys(at: t0) }
            #expect(early.isEmpty)
            let value9 = try await store.write { try $0.insertSubjectKey(key("d")) }
            #expect(value9 == .refused(currentMasterKeyID: "m2"))

            let batch = try await store.read { try $0.subjectKeys(wrappedBy: "m1", after: nil, limit: 2) }
            #expect(batch.map(\.subject) == ["a", "b"])
            var moved = 0
            var after: StoredSubjectKey? = nil
            for round in 0..<3 {
                let keys = try await store.read { [after] in try $0.subjectKeys(wrappedBy: "m1", after: after, limit: 2)
                }
                guard let last = keys.last else { break }
                after = last
                moved += try await store.write { writer in
                    try keys.filter {
                        try writer.rewrapSubjectKey(
                            app: $0.app, subject: $0.subject, scope: $0.scope, fromMasterKeyID: "m1",
                            wrappedKey: [UInt8(round)], masterKeyID: "m2")
                    }.count
                }
            }
            #expect(moved == 3)
            let stale = try await store.write {
                try $0.rewrapSubjectKey(
                    app: "shop", subject: "a", scope: .notifications, fromMasterKeyID: "m1", wrappedKey: [0],
                    masterKeyID: "m2")
            }
            #expect(stale == false, "a key already re-wrapped is not re-wrapped from the old key again")
            let retired = try await store.write { [t0] in try $0.retireUnusedMasterKeys(at: t0.adding(seconds: 9)) }
            #expect(retired == ["m1"])
            let finalKeys = try await store.read { try $0.masterKeys() }
            #expect(finalKeys.first { $0.id == "m1" }?.retiredAt == t0.adding(seconds: 9))
            let value10 = try await store.read { try $0.liveSubjectKeyCounts() }
            #expect(value10 == ["m2": 3])
        }
    }

    @Test(
        "rows of an older release are found in id order and sealed in place; conversions and instances are recorded",
        arguments: StoreFactory.all)
    func conversionAndInstances(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let value11 = try await store.read { try $0.conversionDone("sealed-personal-values") }
            #expect(value11, "a new store has none to do")
            let plaintext = try await store.read { try $0.plaintextNotificationValues(afterID: 0, limit: 10) }
            #expect(plaintext.isEmpty)
            try await store.write { [t0] in try $0.recordConversion("another", at: t0) }
            let value12 = try await store.read { try $0.conversionDone("another") }
            #expect(value12)

            try await store.write { [t0] writer in
                try writer.recordInstanceMasterKeys(instance: "host:1:0", masterKeyIDs: ["m2", "m1"], at: t0)
                try writer.recordInstanceMasterKeys(
                    instance: "host:2:0", masterKeyIDs: ["m1"], at: t0.adding(seconds: -600))
                try writer.recordInstanceMasterKeys(instance: "host:3:0", masterKeyIDs: ["m1"], at: t0)
                try writer.recordInstanceMasterKeys(instance: "host:3:0", masterKeyIDs: nil, at: t0)
            }
            let live = try await store.read { [t0] in try $0.instanceMasterKeys(since: t0.adding(seconds: -60)) }
            #expect(live == [InstanceMasterKeys(instance: "host:1:0", masterKeyIDs: ["m1", "m2"], seenAt: t0)])
        }
    }

    @Test(
        "pending hygiene of self steps is completed once the store removed the remnants", arguments: StoreFactory.all)
    func pendingHygiene(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let plan = ErasureJobPlan(
                policyReference: "default@1#abc", trigger: .accountDeleted, eventTime: t0, origin: .rule(index: 0),
                categories: [.relayEmail], targets: ["self"], notBefore: t0, deadline: t0.adding(seconds: 86_400),
                cancelIfRelinked: false, basis: nil)
            let id = try await store.write { [t0] in
                try $0.insertErasureJob(app: "shop", subject: "a", plan: plan, createdAt: t0)
            }
            let claimed = try await store.write { [t0] in
                try $0.claimErasureSteps(now: t0, owner: "r", leaseUntil: t0.adding(seconds: 60), limit: 1)
            }
            var job = try #require(claimed.first).job.job
            _ = job.record(
                stepResult: .erased(
                    ErasureStepEvidence(
                        rowsAffected: 2, verificationCount: 0, keysDestroyed: 1,
                        hygiene: ErasureStepEvidence.hygienePending)),
                step: 0, at: t0.adding(seconds: 1),
                retry: RetrySchedule(
                    baseDelayMilliseconds: 1, multiplier: 2, maximumDelayMilliseconds: 1, maximumAttempts: 1),
                random: 0)
            let step = job.steps[0]
            _ = try await store.write { [t0] in
                try $0.recordErasureStep(jobID: id, index: 0, step: step, owner: "r", at: t0.adding(seconds: 1))
            }
            let early = try await store.write { [t0] in
                try $0.completePendingHygiene(description: "checkpoint", finishedBy: t0)
            }
            #expect(early == 0, "a step finished after the removal started is not covered by it")
            let done = try await store.write { [t0] in
                try $0.completePendingHygiene(description: "checkpoint", finishedBy: t0.adding(seconds: 5))
            }
            #expect(done == 1)
            let stored = try #require(try await store.read { try $0.erasureJob(id: id) })
            #expect(stored.job.steps[0].evidence.hygiene == "checkpoint")
            #expect(stored.job.steps[0].evidence.keysDestroyed == 1)
            let removal = try await store.removeRemnants()
            #expect(removal.complete)
        }
    }
}
