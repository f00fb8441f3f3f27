import Testing

@testable import LifecycleCore

@Suite("Erasure job and step lifecycle")
struct ErasureJobTests {
    static let t0 = Instant(secondsSinceEpoch: 1_780_000_000)
    static let retry = RetrySchedule(
        baseDelayMilliseconds: 1_000, multiplier: 2, maximumDelayMilliseconds: 60_000, maximumAttempts: 3)

    static func plan(
        targets: [String] = ["app-db", "crm", "self"], notBefore: Instant = t0, cancelIfRelinked: Bool = false
    ) -> ErasureJobPlan {
        ErasureJobPlan(
            policyReference: "kr-pipa@1#abc", trigger: .consentRevoked, eventTime: t0, origin: .rule(index: 2),
            categories: [.profile], targets: targets, notBefore: notBefore,
            deadline: t0.adding(seconds: 5 * 86_400), cancelIfRelinked: cancelIfRelinked, basis: nil)
    }

    func at(_ seconds: Int64) -> Instant { Self.t0.adding(seconds: seconds) }

    /// Starts and records one result for step `index`.
    func attempt(_ job: inout ErasureJob, _ index: Int, _ result: ErasureStepResult, at now: Instant)
        -> ErasureStepAction
    {
        let started = job.startStep(index, at: now)
        #expect(started, "step \(index) should be runnable")
        return job.record(stepResult: result, step: index, at: now, retry: Self.retry, random: 0.5)
    }

    @Test("a new job is scheduled with one pending step per target, none runnable before notBefore")
    func scheduled() {
        let job = ErasureJob(plan: Self.plan(notBefore: at(3600)))
        #expect(job.status == .scheduled)
        #expect(job.steps.map(\.target) == ["app-db", "crm", "self"])
        #expect(job.steps.allSatisfy { $0.status == .pending && $0.attempts == 0 })
        #expect(job.runnableSteps(at: at(3599)) == [])
        #expect(job.runnableSteps(at: at(3600)) == [0, 1])
    }

    @Test("self runs only after every other target is final, and the job completes only when every step is done")
    func completesWhenAllDone() {
        var job = ErasureJob(plan: Self.plan())
        let action2 = attempt(&job, 0, .erased(.init(rowsAffected: 3, verificationCount: 0)), at: at(1))
        #expect(action2 == .finished(.done))
        #expect(job.status == .running)
        let started3 = job.startStep(2, at: at(1))
        #expect(!started3, "self waits for crm")
        let action4 = attempt(&job, 1, .accepted(.init(responseStatus: 202)), at: at(2))
        #expect(action4 == .awaitCallback)
        #expect(job.steps[1].status == .waitingCallback)
        #expect(job.runnableSteps(at: at(3)) == [])
        let action5 = job.record(
            stepResult: .erased(.init(responseStatus: 200)), step: 1, at: at(4), retry: Self.retry, random: 0)
        #expect(action5 == .finished(.done))
        #expect(job.runnableSteps(at: at(4)) == [2])
        #expect(job.status == .running)
        let action6 = attempt(&job, 2, .erased(.init(rowsAffected: 1, verificationCount: 0)), at: at(5))
        #expect(action6 == .finished(.done))
        #expect(job.status == .completed)
        #expect(job.finishedAt == at(5))
        #expect(job.steps[0].evidence == ErasureStepEvidence(rowsAffected: 3, verificationCount: 0))
        #expect(job.steps.map(\.attempts) == [1, 1, 1])
        #expect(!job.isOverdue(at: at(10 * 86_400)))
    }

    @Test("a retryable failure goes back to pending at the jittered delay, then fails after the last attempt")
    func retriesThenFails() {
        var job = ErasureJob(plan: Self.plan(targets: ["app-db"]))
        let timeout = ErasureStepEvidence(errorCode: .timedOut)
        // Attempt 1 fails: cap 1 s, random 0.5 => 500 ms.
        let action7 = attempt(&job, 0, .failed(timeout, retryable: true), at: at(10))
        #expect(action7 == .retry(at: at(10).adding(milliseconds: 500)))
        #expect(job.steps[0].status == .pending)
        #expect(job.steps[0].nextAttemptAt == at(10).adding(milliseconds: 500))
        let started8 = job.startStep(0, at: at(10))
        #expect(!started8, "not before the retry time")
        // Attempt 2 fails: cap 2 s => 1 s.
        let action9 = attempt(&job, 0, .failed(timeout, retryable: true), at: at(20))
        #expect(action9 == .retry(at: at(21)))
        #expect(job.status == .running)
        // Attempt 3 is the last allowed.
        let action10 = attempt(&job, 0, .failed(timeout, retryable: true), at: at(30))
        #expect(action10 == .finished(.failed))
        #expect(job.steps[0].attempts == 3)
        #expect(job.steps[0].evidence.errorCode == .timedOut)
        #expect(job.status == .failed)
        #expect(job.isOverdue(at: at(6 * 86_400)))
        #expect(!job.isOverdue(at: at(4 * 86_400)))
    }

    @Test("a failure a retry cannot fix fails the step at once")
    func permanentFailure() {
        var job = ErasureJob(plan: Self.plan(targets: ["app-db"]))
        let action11 = attempt(
            &job, 0, .failed(.init(responseStatus: 404, errorCode: .httpStatus(404)), retryable: false), at: at(1))
        #expect(action11 == .finished(.failed))
        #expect(job.status == .failed)
        #expect(job.steps[0].attempts == 1)
    }

    @Test("a verification query that still finds rows is not an erasure: retried, then failed")
    func verificationNonZero() {
        var job = ErasureJob(plan: Self.plan(targets: ["app-db"]))
        let remaining = ErasureStepResult.erased(.init(rowsAffected: 2, verificationCount: 1))
        let action12 = attempt(&job, 0, remaining, at: at(1))
        #expect(action12 == .retry(at: at(1).adding(milliseconds: 500)))
        #expect(job.steps[0].evidence.errorCode == .verificationNonzero)
        let action13 = attempt(&job, 0, remaining, at: at(2))
        #expect(action13 == .retry(at: at(3)))
        let action14 = attempt(&job, 0, remaining, at: at(5))
        #expect(action14 == .finished(.failed))
        #expect(job.status == .failed)
    }

    @Test("any unverified step makes the job unverified, never completed")
    func unverified() {
        var job = ErasureJob(plan: Self.plan(targets: ["app-db", "crm"]))
        let action15 = attempt(&job, 0, .erased(.init(verificationCount: 0)), at: at(1))
        #expect(action15 == .finished(.done))
        let action16 = attempt(&job, 1, .unverifiable(.init(responseStatus: 200)), at: at(2))
        #expect(action16 == .finished(.unverified))
        #expect(job.status == .unverified)
        #expect(job.status.isFinished)
        #expect(job.isOverdue(at: at(6 * 86_400)), "unverified is not completed, so it can be overdue")
    }

    @Test("an accepted request whose callback never comes ends unverified")
    func callbackTimeout() {
        var job = ErasureJob(plan: Self.plan(targets: ["crm"]))
        let action17 = attempt(&job, 0, .accepted(.init(responseStatus: 202)), at: at(1))
        #expect(action17 == .awaitCallback)
        let action18 = job.record(stepResult: .callbackTimedOut, step: 0, at: at(2), retry: Self.retry, random: 0)
        #expect(action18 == .finished(.unverified))
        #expect(job.steps[0].evidence.responseStatus == 202, "the acknowledgement stays as evidence")
        #expect(job.status == .unverified)
    }

    @Test("failed wins over unverified once every step is final")
    func failedOverUnverified() {
        var job = ErasureJob(plan: Self.plan(targets: ["app-db", "crm"]))
        _ = attempt(&job, 0, .unverifiable(.none), at: at(1))
        _ = attempt(&job, 1, .failed(.none, retryable: false), at: at(1))
        #expect(job.status == .failed)
    }

    @Test("results that do not apply change nothing: late callbacks, finished steps, steps not started")
    func ignoredResults() {
        var job = ErasureJob(plan: Self.plan(targets: ["app-db", "crm"]))
        let before = job
        let action19 = job.record(stepResult: .erased(.none), step: 0, at: at(1), retry: Self.retry, random: 0)
        #expect(action19 == .ignored)
        let action20 = job.record(stepResult: .erased(.none), step: 7, at: at(1), retry: Self.retry, random: 0)
        #expect(action20 == .ignored)
        #expect(job == before)
        _ = attempt(&job, 0, .erased(.init(verificationCount: 0)), at: at(1))
        let done = job
        let action21 = job.record(
            stepResult: .failed(.none, retryable: true), step: 0, at: at(2), retry: Self.retry, random: 0)
        #expect(action21 == .ignored)
        let started22 = job.startStep(1, at: at(2))
        #expect(started22)
        let action23 = job.record(stepResult: .callbackTimedOut, step: 1, at: at(3), retry: Self.retry, random: 0)
        #expect(action23 == .ignored)
        #expect(job.steps[0] == done.steps[0])
        #expect(job.steps[1].status == .running)
    }

    @Test("a re-link cancels only unfinished jobs whose rule allows it")
    func relinkCancels() {
        var waiting = ErasureJob(plan: Self.plan(notBefore: at(30 * 86_400), cancelIfRelinked: true))
        var running = ErasureJob(plan: Self.plan(targets: ["app-db", "crm"], cancelIfRelinked: true))
        _ = attempt(&running, 0, .erased(.init(verificationCount: 0)), at: at(1))
        var tokens = ErasureJob(plan: Self.plan(cancelIfRelinked: false))
        var finished = ErasureJob(plan: Self.plan(targets: ["app-db"], cancelIfRelinked: true))
        _ = attempt(&finished, 0, .erased(.init(verificationCount: 0)), at: at(1))

        var jobs = [waiting, running, tokens, finished]
        let cancelledIndices24 = ErasureJob.cancelForRelink(&jobs, at: at(100))
        #expect(cancelledIndices24 == [0, 1])
        #expect(jobs.map(\.status) == [.cancelled, .cancelled, .scheduled, .completed])
        #expect(jobs[0].finishedAt == at(100))
        #expect(jobs[0].runnableSteps(at: at(40 * 86_400)) == [])
        let action25 = jobs[1].record(stepResult: .erased(.none), step: 1, at: at(101), retry: Self.retry, random: 0)
        #expect(action25 == .ignored)
        #expect(!jobs[0].isOverdue(at: at(100 * 86_400)))
        let cancelled26 = waiting.cancelForRelink(at: at(1))
        let cancelled26b = waiting.cancelForRelink(at: at(2))
        #expect(cancelled26 && !cancelled26b, "cancelled once")
        let cancelled27 = tokens.cancelForRelink(at: at(1))
        #expect(!cancelled27)
        let cancelled28 = finished.cancelForRelink(at: at(1))
        #expect(!cancelled28)
        _ = running
    }

    @Test("statuses round-trip through their canonical names", arguments: ErasureJobStatus.allCases)
    func canonicalNames(status: ErasureJobStatus) {
        #expect(ErasureJobStatus(canonicalName: status.canonicalName) == status)
    }

    @Test("step statuses round-trip through their canonical names", arguments: ErasureStepStatus.allCases)
    func stepCanonicalNames(status: ErasureStepStatus) {
        #expect(ErasureStepStatus(canonicalName: status.canonicalName) == status)
    }
}
