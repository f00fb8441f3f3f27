import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about the daily probe's claims on the token vault: once per 24 h per token,
/// for every claimer on the store at once. Parameterised by ``StoreFactory``.
@Suite("Store contract: Apple token probe claims")
struct AppleTokenProbeStoreContractTests {
    private var t0: Instant { Fixtures.receivedAt }
    private static let day: Int64 = 86_400_000

    /// Accounts of `app` with a sealed token each, linked at `t0`.
    private func accounts(_ store: any Store, app: String = "shop", _ subjects: [String]) async throws {
        try await store.write { [t0] writer in
            for subject in subjects {
                try writer.saveAccount(app: app, subject: subject, record: Fixtures.sparseAccount)
                try writer.saveAppleToken(
                    NewAppleToken(
                        app: app, subject: subject, clientID: "com.example.shop", sealedRefreshToken: [1, 2, 3],
                        source: .authorizationCode, linkedAt: t0))
            }
        }
    }

    private func claim(_ store: any Store, at instant: Instant, app: String = "shop", limit: Int = 10) async throws
        -> [AppleTokenProbeClaim]
    {
        try await store.write { try $0.claimAppleTokenProbes(app: app, now: instant, limit: limit) }
    }

    @Test(
        "a token is due a day after its link, then a day after each claim; never twice within 24 h; other apps', dropped, revoked and revoking tokens are not claimed",
        arguments: StoreFactory.all)
    func oncePerDay(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            try await accounts(store, ["001.a", "001.b", "001.c", "001.d"])
            try await accounts(store, ["001.e"])
            try await accounts(store, app: "other", ["001.a"])
            try await store.write { [t0] writer in
                try writer.dropAppleToken(app: "shop", subject: "001.c", at: t0)
                _ = try writer.enqueueAppleRevocation(app: "shop", subject: "001.d", at: t0)
                let leased = try writer.claimAppleRevocations(
                    now: t0, owner: "w", leaseUntil: t0.adding(seconds: 60), limit: 1)
                // 001.e's deletion queued a revocation still pending: its token is the revocation's.
                _ = try writer.enqueueAppleRevocation(app: "shop", subject: "001.e", at: t0)
                for revocation in leased {
                    try writer.finishAppleRevocation(
                        id: revocation.id, owner: "w", status: .verified, revokedAt: t0, verifiedAt: t0, error: nil,
                        at: t0)
                }
            }
            #expect(try await claim(store, at: t0.adding(milliseconds: Self.day - 1)).isEmpty, "linked < 24 h ago")
            let first = try await claim(store, at: t0.adding(milliseconds: Self.day))
            #expect(first.map(\.subject) == ["001.a", "001.b"], "\(first)")
            #expect(first.allSatisfy { $0.previousProbeAt == nil && $0.clientID == "com.example.shop" })
            let stored = try await store.read { try $0.appleToken(app: "shop", subject: "001.a") }
            #expect(stored?.lastProbeAt == t0.adding(milliseconds: Self.day), "the claim records the probe")
            #expect(try await claim(store, at: t0.adding(milliseconds: Self.day)).isEmpty, "claimed once")
            #expect(try await claim(store, at: t0.adding(milliseconds: 2 * Self.day - 1)).isEmpty, "within 24 h")
            let next = try await claim(store, at: t0.adding(milliseconds: 2 * Self.day), limit: 1)
            #expect(next.map(\.subject) == ["001.a"], "a limit of one")
            #expect(next.first?.previousProbeAt == t0.adding(milliseconds: Self.day))
            let other = try await claim(store, at: t0.adding(milliseconds: 2 * Self.day), app: "other")
            #expect(other.map(\.subject) == ["001.a"], "each app's own tokens")
        }
    }

    @Test(
        "a released claim restores the last probe and waits for retryAt; a stale release changes nothing; a re-link starts afresh",
        arguments: StoreFactory.all)
    func release(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            try await accounts(store, ["001.a"])
            let at = t0.adding(milliseconds: Self.day)
            let claimed = try #require(try await claim(store, at: at).first)
            let released = try await store.write { [at] in
                try $0.releaseAppleTokenProbe(claimed, retryAt: at.adding(seconds: 3_600))
            }
            #expect(released)
            #expect(try await store.read { try $0.appleToken(app: "shop", subject: "001.a") }?.lastProbeAt == nil)
            #expect(try await claim(store, at: at.adding(seconds: 3_599)).isEmpty, "not before retryAt")
            let retried = try #require(try await claim(store, at: at.adding(seconds: 3_600)).first)
            #expect(retried.previousProbeAt == nil)
            let stale = try await store.write { try $0.releaseAppleTokenProbe(claimed, retryAt: nil) }
            #expect(!stale, "the retry's claim replaced the first one")
            #expect(
                try await store.read { try $0.appleToken(app: "shop", subject: "001.a") }?.lastProbeAt
                    == at.adding(seconds: 3_600))

            // A release waiting for its retry, then a new sign-in: the new token's day counts from its link.
            let third = try #require(try await claim(store, at: at.adding(milliseconds: Self.day + 3_600_000)).first)
            _ = try await store.write { [at] in
                try $0.releaseAppleTokenProbe(third, retryAt: at.adding(seconds: 30 * 86_400))
            }
            let relinkedAt = at.adding(milliseconds: Self.day + 3_600_000)
            let relinked = try await store.write { [relinkedAt] writer in
                try writer.saveAppleToken(
                    NewAppleToken(
                        app: "shop", subject: "001.a", clientID: "com.example.shop", sealedRefreshToken: [4, 5, 6],
                        source: .refreshToken, linkedAt: relinkedAt))
            }
            #expect(relinked)
            #expect(try await claim(store, at: relinkedAt.adding(milliseconds: Self.day - 1)).isEmpty)
            let fresh = try await claim(store, at: relinkedAt.adding(milliseconds: Self.day))
            #expect(fresh.map(\.previousProbeAt) == [nil], "the old retry and probe are forgotten: \(fresh)")
        }
    }

    @Test(
        "two stores on one database claiming at once never both claim a token: every token once",
        arguments: StoreFactory.all)
    func concurrentClaimers(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let first = try await factory.open(location)
            let second = try await factory.open(location)
            let subjects = (0..<40).map { "001.\($0 + 100)" }
            try await accounts(first, subjects)
            let at = t0.adding(milliseconds: Self.day)
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for store in [first, second, first, second] {
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let batch = try await store.write {
                                try $0.claimAppleTokenProbes(app: "shop", now: at, limit: 3)
                            }
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.subject)
                        }
                    }
                }
                var all: [String] = []
                for try await some in group { all += some }
                return all
            }
            await first.close()
            await second.close()
            #expect(claimed.count == subjects.count, "\(claimed.count) claims for \(subjects.count) tokens")
            #expect(Set(claimed) == Set(subjects))
        }
    }
}
