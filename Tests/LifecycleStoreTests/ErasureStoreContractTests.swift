import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about erasure jobs and steps. Parameterised by ``StoreFactory``.
@Suite("Store contract: erasure jobs")
struct ErasureStoreContractTests {
    private var t0: Instant { Fixtures.receivedAt }
    private let sub = "001234.5f8e2a.0957"
    private let retry = RetrySchedule(
        baseDelayMilliseconds: 1000, multiplier: 2, maximumDelayMilliseconds: 10_000, maximumAttempts: 2)

    private func plan(
        targets: [String] = ["app-db", "self"], notBefore: Instant? = nil, cancelIfRelinked: Bool = false,
        origin: ErasureJobOrigin = .rule(index: 1)
    ) -> ErasureJobPlan {
        ErasureJobPlan(
            policyReference: "kr-pipa@1#abc123", trigger: .consentRevoked, eventTime: t0, origin: origin,
            categories: [.profile, .relayEmail], targets: targets, notBefore: notBefore ?? t0,
            deadline: t0.adding(seconds: 5 * 86_400), cancelIfRelinked: cancelIfRelinked,
            basis: "PIPA Art. 21(1)")
    }

    @Test("a stored job reads back with its frozen plan and one pending step per target", arguments: StoreFactory.all)
    func roundTrip(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let plan = plan(origin: .retention(index: 2))
            let id = try await store.write { [sub, t0] in
                try $0.insertErasureJob(app: "shop", subject: sub, plan: plan, createdAt: t0)
            }
            let stored = try #require(try await store.read { try $0.erasureJob(id: id) })
            #expect(stored.job == ErasureJob(plan: plan))
            #expect(stored.status == .scheduled)
            #expect(stored.app == "shop" && stored.subject == sub && stored.createdAt == t0)
            let counts = try await store.read { try $0.erasureJobCounts() }
            #expect(counts[.scheduled] == 1)
            let ofAccount = try await store.read { [sub] in try $0.erasureJobs(app: "shop", subject: sub) }
            #expect(ofAccount.map(\.id) == [id])
        }
    }

    @Test(
        "a claim leases a due step once, offers self only after the other steps are final, and records evidence",
        arguments: StoreFactory.all)
    func claimOrderAndLease(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let plan = plan()
            let id = try await store.write { [sub, t0] in
                try $0.insertErasureJob(app: "shop", subject: sub, plan: plan, createdAt: t0)
            }
            let early = try await store.write { [t0] in
                try $0.claimErasureSteps(
                    now: t0.adding(milliseconds: -1), owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            #expect(early.isEmpty, "not before notBefore")
            let first = try await store.write { [t0] in
                try $0.claimErasureSteps(now: t0, owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            #expect(first.map(\.step.target) == ["app-db"], "self waits for app-db")
            #expect(first.first?.step.status == .running && first.first?.step.attempts == 1)
            #expect(first.first?.job.status == .running)
            let other = try await store.write { [t0] in
                try $0.claimErasureSteps(
                    now: t0.adding(seconds: 1), owner: "b", leaseUntil: t0.adding(seconds: 31), limit: 10)
            }
            #expect(other.isEmpty, "a live lease keeps the step from another runner")

            var job = try #require(first.first).job.job
            _ = job.record(
                stepResult: .erased(ErasureStepEvidence(rowsAffected: 3, verificationCount: 0)), step: 0,
                at: t0.adding(seconds: 2), retry: retry, random: 0)
            let step = job.steps[0]
            let refused = try await store.write { [t0] in
                try $0.recordErasureStep(jobID: id, index: 0, step: step, owner: "b", at: t0.adding(seconds: 2))
            }
            #expect(refused == nil, "only the lease owner records")
            let saved = try await store.write { [t0] in
                try $0.recordErasureStep(jobID: id, index: 0, step: step, owner: "a", at: t0.adding(seconds: 2))
            }
            #expect(saved?.job.steps[0].evidence == ErasureStepEvidence(rowsAffected: 3, verificationCount: 0))
            #expect(saved?.job.steps[0].status == .done)

            let selfClaim = try await store.write { [t0] in
                try $0.claimErasureSteps(
                    now: t0.adding(seconds: 3), owner: "b", leaseUntil: t0.adding(seconds: 33), limit: 10)
            }
            #expect(selfClaim.map(\.step.target) == ["self"])
            var selfJob = try #require(selfClaim.first).job.job
            _ = selfJob.record(
                stepResult: .erased(ErasureStepEvidence(rowsAffected: 1, verificationCount: 0)), step: 1,
                at: t0.adding(seconds: 4), retry: retry, random: 0)
            let selfStep = selfJob.steps[1]
            let done = try await store.write { [t0] in
                try $0.recordErasureStep(jobID: id, index: 1, step: selfStep, owner: "b", at: t0.adding(seconds: 4))
            }
            #expect(done?.status == .completed)
            #expect(done?.job.finishedAt == t0.adding(seconds: 4))
            let counts = try await store.read { try $0.erasureJobCounts() }
            #expect(counts[.completed] == 1)
            let stepCounts = try await store.read { try $0.erasureStepCounts() }
            #expect(
                stepCounts
                    == [
                        ErasureStepCount(target: "app-db", status: .done, count: 1),
                        ErasureStepCount(target: "self", status: .done, count: 1),
                    ])
        }
    }

    @Test(
        "a claim takes the due steps of the most urgent open jobs first, past jobs not due or finished",
        arguments: StoreFactory.all)
    func claimByDeadline(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            func job(deadlineDays: Int, notBeforeDays: Int = 0) -> ErasureJobPlan {
                var plan = plan(targets: ["app-db"], notBefore: t0.adding(seconds: Int64(notBeforeDays) * 86_400))
                plan.deadline = t0.adding(seconds: Int64(deadlineDays) * 86_400)
                return plan
            }
            // Inserted out of deadline order; the earliest deadline is not due yet.
            let plans = [
                job(deadlineDays: 9), job(deadlineDays: 3), job(deadlineDays: 1, notBeforeDays: 2),
                job(deadlineDays: 5), job(deadlineDays: 7),
            ]
            var ids: [Int64] = []
            for plan in plans {
                ids.append(
                    try await store.write { [sub, t0] in
                        try $0.insertErasureJob(app: "shop", subject: sub, plan: plan, createdAt: t0)
                    })
            }
            let first = try await store.write { [t0] in
                try $0.claimErasureSteps(now: t0, owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 2)
            }
            #expect(Set(first.map(\.job.id)) == [ids[1], ids[3]], "deadlines 3 and 5 days: the most urgent due")
            // Finish the day-3 job: it leaves the open jobs, and the next claim goes on in deadline order.
            var done = try #require(first.first).job.job
            _ = done.record(
                stepResult: .erased(ErasureStepEvidence(rowsAffected: 1, verificationCount: 0)), step: 0,
                at: t0.adding(seconds: 1), retry: retry, random: 0)
            let finished = done.steps[0]
            let urgent = ids[1]
            _ = try await store.write { [t0] in
                try $0.recordErasureStep(jobID: urgent, index: 0, step: finished, owner: "a", at: t0.adding(seconds: 1))
            }
            let second = try await store.write { [t0] in
                try $0.claimErasureSteps(
                    now: t0.adding(seconds: 2), owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            #expect(Set(second.map(\.job.id)) == [ids[4], ids[0]], "the day-5 job is leased; the not-due one waits")
            let later = try await store.write { [t0] in
                try $0.claimErasureSteps(
                    now: t0.adding(seconds: 2 * 86_400), owner: "b", leaseUntil: t0.adding(seconds: 3 * 86_400),
                    limit: 1)
            }
            #expect(later.map(\.job.id) == [ids[2]], "once due, the earliest deadline comes first")
        }
    }

    @Test("a step whose runner died is claimable again once its lease has passed", arguments: StoreFactory.all)
    func expiredLease(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let plan = plan(targets: ["app-db"])
            _ = try await store.write { [sub, t0] in
                try $0.insertErasureJob(app: "shop", subject: sub, plan: plan, createdAt: t0)
            }
            _ = try await store.write { [t0] in
                try $0.claimErasureSteps(now: t0, owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            let again = try await store.write { [t0] in
                try $0.claimErasureSteps(
                    now: t0.adding(seconds: 30), owner: "b", leaseUntil: t0.adding(seconds: 60), limit: 10)
            }
            #expect(again.map(\.step.attempts) == [2])
        }
    }

    @Test("retry sends failed steps back to pending with their attempts reset", arguments: StoreFactory.all)
    func retryFailed(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let plan = plan(targets: ["app-db"])
            let id = try await store.write { [sub, t0] in
                try $0.insertErasureJob(app: "shop", subject: sub, plan: plan, createdAt: t0)
            }
            let claims = try await store.write { [t0] in
                try $0.claimErasureSteps(now: t0, owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 1)
            }
            let claim = try #require(claims.first)
            var job = claim.job.job
            _ = job.record(
                stepResult: .failed(ErasureStepEvidence(errorCode: .sqlitePrepare), retryable: false), step: 0,
                at: t0, retry: retry, random: 0)
            let step = job.steps[0]
            let failed = try await store.write { [t0] in
                try $0.recordErasureStep(jobID: id, index: 0, step: step, owner: "a", at: t0)
            }
            #expect(failed?.status == .failed)
            #expect(failed?.job.steps[0].evidence.errorCode == .sqlitePrepare)
            let reset = try await store.write { [t0] in try $0.retryErasureJob(id: id, now: t0.adding(seconds: 9)) }
            #expect(reset == 1)
            let retried = try #require(try await store.read { try $0.erasureJob(id: id) })
            #expect(retried.status == .scheduled)
            #expect(retried.job.steps[0].status == .pending && retried.job.steps[0].attempts == 0)
            let none = try await store.write { [t0] in try $0.retryErasureJob(id: id, now: t0) }
            #expect(none == 0, "nothing failed now")
        }
    }

    @Test(
        "a re-link cancels only unfinished cancellable jobs, with the reason, and their steps are never claimed",
        arguments: StoreFactory.all)
    func relinkCancels(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let kept = plan(cancelIfRelinked: false)
            let waiting = plan(notBefore: t0.adding(seconds: 30 * 86_400), cancelIfRelinked: true)
            let (keep, cancel) = try await store.write { [sub, t0] in
                (
                    try $0.insertErasureJob(app: "shop", subject: sub, plan: kept, createdAt: t0),
                    try $0.insertErasureJob(app: "shop", subject: sub, plan: waiting, createdAt: t0)
                )
            }
            let cancelled = try await store.write { [sub, t0] in
                try $0.cancelErasureJobsForRelink(
                    app: "shop", subject: sub, at: t0.adding(seconds: 60), reason: "relinked")
            }
            #expect(cancelled == [cancel])
            let jobs = try await store.read { [sub] in try $0.erasureJobs(app: "shop", subject: sub) }
            #expect(jobs.map(\.status) == [.scheduled, .cancelled])
            #expect(jobs[1].cancelReason == "relinked" && jobs[1].job.cancelledAt == t0.adding(seconds: 60))
            #expect(jobs[0].id == keep)
            let claimed = try await store.write { [t0] in
                try $0.claimErasureSteps(
                    now: t0.adding(seconds: 40 * 86_400), owner: "a", leaseUntil: t0.adding(seconds: 41 * 86_400),
                    limit: 10)
            }
            #expect(claimed.allSatisfy { $0.job.id == keep })
        }
    }

    @Test(
        "the self erasure destroys the subject's data keys, clears the sealed e-mail, raw JWS and token, keeps the tombstone and counts what remains",
        arguments: StoreFactory.all)
    func selfScrub(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let t0 = Fixtures.receivedAt
            try await store.write { [sub] writer in
                _ = try writer.registerMasterKey(id: "m1", at: t0)
                for scope in SubjectKeyScope.allCases {
                    let inserted = try writer.insertSubjectKey(
                        NewSubjectKey(
                            app: "shop", subject: sub, scope: scope, wrappedKey: [9, 9], masterKeyID: "m1",
                            createdAt: t0))
                    #expect(inserted == .inserted)
                }
                _ = try writer.insertNotification(
                    Fixtures.notification(sub: sub, type: .emailEnabled, email: "abc@privaterelay.appleid.com"))
                try writer.saveAccount(app: "shop", subject: sub, record: Fixtures.sparseAccount)
                try writer.saveAppleToken(
                    NewAppleToken(
                        app: "shop", subject: sub, clientID: "com.example.shop", sealedRefreshToken: [1, 2, 3],
                        source: .authorizationCode, linkedAt: t0))
            }
            let all = Set(SubjectKeyScope.allCases)
            let before = try await store.read { [sub] in
                try $0.remainingSubjectValues(app: "shop", subject: sub, scopes: all)
            }
            #expect(before == 4, "two live keys, the inbox row, the token")
            let sealed = try await store.read { [sub] in try $0.sealedValues(app: "shop", subject: sub) }
            #expect(sealed.map(\.column) == [.notificationEmail, .notificationToken, .appleRefreshToken])
            let erased = try await store.write { [sub] in
                try $0.eraseSubjectValues(app: "shop", subject: sub, scopes: all, at: t0.adding(seconds: 60))
            }
            #expect(erased == SubjectValueErasure(keysDestroyed: 2, rowsCleared: 2))
            let after = try await store.read { [sub] in
                try $0.remainingSubjectValues(app: "shop", subject: sub, scopes: all)
            }
            #expect(after == 0)
            let again = try await store.write { [sub] in
                try $0.eraseSubjectValues(app: "shop", subject: sub, scopes: all, at: t0.adding(seconds: 120))
            }
            #expect(again == SubjectValueErasure(keysDestroyed: 0, rowsCleared: 0), "erasing twice changes nothing")
            let keys = try await store.read { [sub] in try $0.subjectKeys(app: "shop", subject: sub) }
            #expect(
                keys.allSatisfy { $0.isDestroyed && $0.destroyedAt == t0.adding(seconds: 60) && $0.masterKeyID == "m1" }
            )
            let account = try await store.read { [sub] in try $0.account(app: "shop", subject: sub) }
            #expect(account != nil, "the account row stays as the tombstone")
            let token = try await store.read { [sub] in try $0.appleToken(app: "shop", subject: sub) }
            #expect(token?.sealedRefreshToken == nil)
            #expect(token?.vaultState == .notHeld, "erased: the row stays, without the token")
            let left = try await store.read { [sub] in try $0.sealedValues(app: "shop", subject: sub) }
            #expect(left.isEmpty)
        }
    }
}
