import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about the extensions, legal holds and refusals of deletion requests.
/// Parameterised by ``StoreFactory``.
@Suite("Store contract: request decisions")
struct RequestDecisionStoreContractTests {
    private var t0: Instant { Fixtures.receivedAt }
    private let sub = "001234.5f8e2a.0957"

    private var request: DeletionRequestKey {
        DeletionRequestKey(app: "shop", subject: sub, trigger: .accountDeleted, eventTime: t0)
    }

    private func plan(eventTime: Instant? = nil, origin: ErasureJobOrigin = .rule(index: 0)) -> ErasureJobPlan {
        ErasureJobPlan(
            policyReference: "default@1#abc", trigger: .accountDeleted, eventTime: eventTime ?? t0, origin: origin,
            categories: [.profile], targets: ["app-db"], notBefore: t0, deadline: t0.adding(seconds: 30 * 86_400),
            cancelIfRelinked: false, basis: "GDPR Art. 17(1)")
    }

    private func claim(_ store: any Store, at now: Instant, owner: String) async throws -> [ClaimedErasureStep] {
        try await store.write { writer in
            try writer.claimErasureSteps(now: now, owner: owner, leaseUntil: now.adding(seconds: 30), limit: 10)
        }
    }

    @Test(
        "a hold keeps the runner off the request's steps, another request of the account still runs, and release lets it run",
        arguments: StoreFactory.all)
    func holdAndRelease(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let (held, other) = try await store.write { [sub, t0] writer in
                (
                    try writer.insertErasureJob(app: "shop", subject: sub, plan: plan(), createdAt: t0),
                    try writer.insertErasureJob(
                        app: "shop", subject: sub, plan: plan(eventTime: t0.adding(seconds: -60)), createdAt: t0)
                )
            }
            _ = try await store.write { [request, t0] in
                try $0.recordRequestDecision(
                    NewRequestDecision(request: request, kind: .hold, reason: "litigation hold LH-7", recordedAt: t0))
            }
            let during = try await claim(store, at: t0.adding(seconds: 1), owner: "a")
            #expect(during.map(\.job.id) == [other], "only the request without a hold is claimed")

            let released = try await store.write { [request, t0] in
                try $0.releaseRequestHold(request, at: t0.adding(seconds: 2), reason: "case closed")
            }
            #expect(released == 1)
            let again = try await store.write { [request, t0] in
                try $0.releaseRequestHold(request, at: t0.adding(seconds: 3), reason: "twice")
            }
            #expect(again == 0, "a released hold is not released twice")
            let after = try await claim(store, at: t0.adding(seconds: 4), owner: "b")
            #expect(after.map(\.job.id) == [held])

            let decisions = try await store.read { [sub] in try $0.requestDecisions(app: "shop", subject: sub) }
            #expect(decisions.count == 1)
            #expect(decisions.first?.kind == .hold && decisions.first?.decision.reason == "litigation hold LH-7")
            #expect(decisions.first?.releasedAt == t0.adding(seconds: 2))
            #expect(decisions.first?.releaseReason == "case closed")
        }
    }

    @Test(
        "an extension moves the open erasure jobs' deadline and a refusal cancels them with its basis, durably",
        arguments: StoreFactory.all)
    func extensionAndRefusal(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let store = try await factory.open(location)
            let newDeadline = t0.adding(seconds: 60 * 86_400)
            let (erasure, purge) = try await store.write { [sub, t0] writer in
                (
                    try writer.insertErasureJob(app: "shop", subject: sub, plan: plan(), createdAt: t0),
                    try writer.insertErasureJob(
                        app: "shop", subject: sub, plan: plan(origin: .retention(index: 0)), createdAt: t0)
                )
            }
            _ = try await store.write { [request, t0] in
                try $0.recordRequestDecision(
                    NewRequestDecision(
                        request: request, kind: .extension, reason: "complex request",
                        noticeAt: t0.adding(seconds: 86_400), previousDeadline: t0.adding(seconds: 30 * 86_400),
                        newDeadline: newDeadline, recordedAt: t0.adding(seconds: 86_400)))
            }
            let extended = try await store.read { try $0.erasureJob(id: erasure) }
            #expect(extended?.job.plan.deadline == newDeadline)
            let untouched = try await store.read { try $0.erasureJob(id: purge) }
            #expect(untouched?.job.plan.deadline == t0.adding(seconds: 30 * 86_400), "a purge job is not a request's")

            _ = try await store.write { [request, t0] in
                try $0.recordRequestDecision(
                    NewRequestDecision(
                        request: request, kind: .refusal, reason: "Cal. Civ. Code §1798.105(d)(2)",
                        recordedAt: t0.adding(seconds: 2 * 86_400)))
            }
            await store.close()

            let reopened = try await factory.open(location)
            let (job, decisions) = try await reopened.read { [sub] reader in
                (try reader.erasureJob(id: erasure), try reader.requestDecisions(app: "shop", subject: sub))
            }
            let after = try await claim(reopened, at: t0.adding(seconds: 3 * 86_400), owner: "a")
            await reopened.close()
            #expect(job?.status == .cancelled)
            #expect(job?.cancelReason == "refused: Cal. Civ. Code §1798.105(d)(2)")
            #expect(job?.job.cancelledAt == t0.adding(seconds: 2 * 86_400))
            #expect(decisions.map(\.kind) == [.extension, .refusal])
            #expect(decisions.first?.decision.noticeAt == t0.adding(seconds: 86_400))
            #expect(decisions.first?.decision.previousDeadline == t0.adding(seconds: 30 * 86_400))
            #expect(decisions.first?.decision.newDeadline == newDeadline)
            #expect(after.map(\.job.id) == [purge], "the refused request's erasure is not claimed")
        }
    }
}
