import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about the Apple token revocation queue. Parameterised by ``StoreFactory``.
@Suite("Store contract: Apple token revocations")
struct AppleRevocationStoreContractTests {
    private var t0: Instant { Fixtures.receivedAt }
    private let sub = "001234.5f8e2a.0957"

    /// An account of `shop`, with a sealed token in the vault when `token`.
    private func account(_ store: any Store, token: Bool) async throws {
        try await store.write { [sub, t0] writer in
            try writer.saveAccount(app: "shop", subject: sub, record: Fixtures.sparseAccount)
            if token {
                try writer.saveAppleToken(
                    NewAppleToken(
                        app: "shop", subject: sub, clientID: "com.example.shop", sealedRefreshToken: [1, 2, 3],
                        source: .authorizationCode, linkedAt: t0))
            }
        }
    }

    @Test(
        "a deletion queues a pending revocation when a token is held, records no-token at once when none is, and only once",
        arguments: StoreFactory.all)
    func enqueue(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            try await account(store, token: true)
            let queued = try await store.write { [sub, t0] in
                try $0.enqueueAppleRevocation(app: "shop", subject: sub, at: t0)
            }
            #expect(queued == .pending)
            let again = try await store.write { [sub, t0] in
                try $0.enqueueAppleRevocation(app: "shop", subject: sub, at: t0.adding(seconds: 1))
            }
            #expect(again == nil, "one revocation per account")
            let token = try await store.read { [sub] in try $0.appleToken(app: "shop", subject: sub) }
            #expect(token?.sealedRefreshToken == [1, 2, 3], "the token stays until the revocation is final")

            try await store.write { writer in
                try writer.saveAccount(app: "shop", subject: "000999.none", record: Fixtures.sparseAccount)
            }
            let none = try await store.write { [t0] in
                try $0.enqueueAppleRevocation(app: "shop", subject: "000999.none", at: t0)
            }
            #expect(none == .noToken)
            let stored = try await store.read { try $0.appleRevocation(app: "shop", subject: "000999.none") }
            #expect(stored?.status == .noToken && stored?.finishedAt == t0)
            let counts = try await store.read { try $0.appleRevocationCounts() }
            #expect(counts[.pending] == 1 && counts[.noToken] == 1 && counts[.verified] == 0)
        }
    }

    @Test(
        "a claim leases a due revocation once; an expired lease passes to another worker; only the holder records; the final status ends the token in the vault",
        arguments: StoreFactory.all)
    func claimAndFinish(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            try await account(store, token: true)
            _ = try await store.write { [sub, t0] in try $0.enqueueAppleRevocation(app: "shop", subject: sub, at: t0) }
            let first = try await store.write { [t0] in
                try $0.claimAppleRevocations(now: t0, owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            #expect(first.map(\.attempts) == [1] && first.first?.leaseOwner == "a")
            let blocked = try await store.write { [t0] in
                try $0.claimAppleRevocations(
                    now: t0.adding(seconds: 1), owner: "b", leaseUntil: t0.adding(seconds: 31), limit: 10)
            }
            #expect(blocked.isEmpty, "a live lease keeps other workers off")
            let id = try #require(first.first?.id)
            let retried = try await store.write { [t0] in
                try $0.retryAppleRevocation(
                    id: id, owner: "a", revokedAt: t0.adding(seconds: 2), error: "token_still_valid",
                    nextAttemptAt: t0.adding(seconds: 10))
            }
            #expect(retried)
            let early = try await store.write { [t0] in
                try $0.claimAppleRevocations(
                    now: t0.adding(seconds: 9), owner: "b", leaseUntil: t0.adding(seconds: 40), limit: 10)
            }
            #expect(early.isEmpty, "not before the backoff")
            let second = try await store.write { [t0] in
                try $0.claimAppleRevocations(
                    now: t0.adding(seconds: 10), owner: "b", leaseUntil: t0.adding(seconds: 20), limit: 10)
            }
            #expect(second.map(\.attempts) == [2] && second.first?.revokes == 1)
            let takenOver = try await store.write { [t0] in
                try $0.claimAppleRevocations(
                    now: t0.adding(seconds: 20), owner: "c", leaseUntil: t0.adding(seconds: 50), limit: 10)
            }
            #expect(takenOver.map(\.attempts) == [3], "b's lease passed: c takes over")
            let stale = try await store.write { [t0] in
                try $0.finishAppleRevocation(
                    id: id, owner: "b", status: .verified, revokedAt: t0.adding(seconds: 21),
                    verifiedAt: t0.adding(seconds: 21), error: nil, at: t0.adding(seconds: 21))
            }
            #expect(!stale, "b no longer holds the lease")
            let finished = try await store.write { [t0] in
                try $0.finishAppleRevocation(
                    id: id, owner: "c", status: .verified, revokedAt: t0.adding(seconds: 22),
                    verifiedAt: t0.adding(seconds: 23), error: nil, at: t0.adding(seconds: 23))
            }
            #expect(finished)
            let stored = try await store.read { [sub] in try $0.appleRevocation(app: "shop", subject: sub) }
            #expect(stored?.status == .verified && stored?.revokes == 2)
            #expect(stored?.revokedAt == t0.adding(seconds: 22) && stored?.verifiedAt == t0.adding(seconds: 23))
            let token = try await store.read { [sub] in try $0.appleToken(app: "shop", subject: sub) }
            #expect(token?.sealedRefreshToken == nil)
            #expect(token?.vaultState == .revoked(at: t0.adding(seconds: 22)))
            let none = try await store.write { [t0] in
                try $0.claimAppleRevocations(
                    now: t0.adding(seconds: 100), owner: "a", leaseUntil: t0.adding(seconds: 130), limit: 10)
            }
            #expect(none.isEmpty, "a final revocation is never claimed")
        }
    }

    @Test(
        "the erasure self step, which destroys the key that opens the token, waits for a pending revocation",
        arguments: StoreFactory.all)
    func selfWaitsForRevocation(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            try await account(store, token: true)
            let plan = ErasureJobPlan(
                policyReference: "p@1#abc", trigger: .inAppDeletion, eventTime: t0, origin: .rule(index: 0),
                categories: [.profile], targets: ["self"], notBefore: t0, deadline: t0.adding(seconds: 86_400),
                cancelIfRelinked: false, basis: "GDPR Art. 17")
            try await store.write { [sub, t0] writer in
                try writer.enqueueAppleRevocation(app: "shop", subject: sub, at: t0)
                try writer.insertErasureJob(app: "shop", subject: sub, plan: plan, createdAt: t0)
            }
            let waiting = try await store.write { [t0] in
                try $0.claimErasureSteps(now: t0, owner: "e", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            #expect(waiting.isEmpty, "self is not offered while the revocation is pending")
            let revocation = try await store.write { [t0] in
                try $0.claimAppleRevocations(now: t0, owner: "r", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            let id = try #require(revocation.first?.id)
            _ = try await store.write { [t0] in
                try $0.finishAppleRevocation(
                    id: id, owner: "r", status: .failed, revokedAt: nil, verifiedAt: nil, error: "invalid_client",
                    at: t0.adding(seconds: 1))
            }
            let ready = try await store.write { [t0] in
                try $0.claimErasureSteps(
                    now: t0.adding(seconds: 2), owner: "e", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            #expect(ready.map(\.step.target) == ["self"], "a given-up revocation no longer holds the key")
            let token = try await store.read { [sub] in try $0.appleToken(app: "shop", subject: sub) }
            #expect(token?.sealedRefreshToken == nil && token?.droppedAt != nil, "given up: dropped, not revoked")
        }
    }
}
