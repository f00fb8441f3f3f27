import Foundation
import LifecycleCore
import LifecycleSQL
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleEngine

@Suite("Erasure jobs end to end")
struct ErasureEndToEndTests {
    let subject = TestFixtures.subject

    @Test(
        "an account-delete notification erases the user's rows in the app database and the relay e-mail, completed before the deadline with evidence",
        arguments: HarnessStore.available)
    func accountDeleteErases(store: HarnessStore) async throws {
        let backend = store
        let scenario = try ErasureScenario(store: store)
        let harness = scenario.harness
        let service = try await harness.start()
        let relay = "k3b7x9q2m1@privaterelay.appleid.com"
        let enabled = try await harness.post(
            harness.body(
                type: "email-enabled", subject: subject,
                extra: ["email": .string(relay), "is_private_email": "true"]))
        #expect(enabled.status == 200)
        let deleted = try await harness.post(harness.body(type: "account-delete", subject: subject))
        #expect(deleted.status == 200)

        let store = service.context.store
        let scheduled = try await store.jobs(subject: subject)
        // rules[0] of the default policy, and one purge job per retain[] entry (payment and complaint records).
        #expect(scheduled.map(\.job.plan.origin) == [.rule(index: 0), .retention(index: 0), .retention(index: 1)])
        let configuration = try harness.configuration
        let policy = try #require(configuration.policies["default"])
        #expect(scheduled.allSatisfy { $0.job.plan.policyReference == PolicyLibrary.frozenReference(policy) })
        #expect(scheduled[0].job.plan.targets == ["app-db", "self"])

        try await service.erasureRunner.runOnce()
        let job = try await store.job(scheduled[0].id)
        #expect(job.status == .completed)
        let finished = try #require(job.job.finishedAt)
        #expect(finished < job.job.plan.deadline)
        let appStep = job.job.steps[0]
        #expect(appStep.target == "app-db" && appStep.status == .done)
        #expect(appStep.evidence.rowsAffected == 3 && appStep.evidence.verificationCount == 0)
        #expect(
            appStep.evidence.hygiene == "secure_delete, journal_mode=delete",
            "a rollback-journal app database needs no log truncation; secure_delete zeroed the rows")
        let selfStep = job.job.steps[1]
        #expect(selfStep.target == "self" && selfStep.status == .done)
        #expect(selfStep.evidence.verificationCount == 0)
        #expect(selfStep.evidence.keysDestroyed == 1, "the subject's notifications data key")
        #expect(
            selfStep.evidence.hygiene?.hasPrefix(
                backend == .sqlite ? "secure_delete, wal_checkpoint(TRUNCATE) at " : "VACUUM subject_keys at ") == true)
        #expect((selfStep.evidence.rowsAffected ?? 0) >= 1, "the relay e-mail was there to scrub")
        let left = try ErasureScenario.rows(of: subject, in: scenario.appDatabase)
        #expect(left == 0)
        let others = try ErasureScenario.rows(of: ErasureScenario.otherSubject, in: scenario.appDatabase)
        #expect(others == 3, "nobody else's rows")

        let remaining = try await store.read { [subject] in
            try $0.remainingSubjectValues(app: "shop", subject: subject, scopes: Set(SubjectKeyScope.allCases))
        }
        #expect(remaining == 0)
        let account = try await store.read { [subject] in try $0.account(app: "shop", subject: subject) }
        #expect(account?.state == .deleted, "the account row stays as the tombstone")
        let purges = try await store.jobs(subject: subject)
        #expect(purges.dropFirst().allSatisfy { $0.status == .scheduled }, "retention purges wait for their date")

        let metrics = service.context.metrics.render()
        #expect(metrics.contains("lifecycle_erasure_jobs{status=\"completed\"} 1"))
        #expect(metrics.contains("lifecycle_erasure_step_attempts_total{target=\"app-db\",outcome=\"done\"} 1"))
        #expect(metrics.contains("lifecycle_erasure_completion_seconds_count 1"))
        #expect(metrics.contains("lifecycle_erasure_jobs_overdue 0"))
        #expect(!harness.log.contains(subject) && !harness.log.contains(relay), "logs hold pseudonyms only")

        let (io, output, _) = CommandIO.capturing()
        let exit = await CommandLineInterface.run(
            arguments: ["jobs", "list", "--status", "completed", "--json", "--config", harness.configurationFile],
            io: io)
        #expect(exit == 0)
        let listed = JSONValue.parseIfValid(Array(output().utf8))?["jobs"]?.arrayValue ?? []
        #expect(listed.map { $0["id"]?.integerValue } == [job.id])
        #expect(listed.first?["steps"]?.arrayValue?.first?["rows_affected"]?.integerValue == 3)
        #expect(!output().contains(subject), "accounts are listed by pseudonym")
        await harness.stop()
    }

    @Test("serve runs due erasure steps in the background without a command", arguments: HarnessStore.available)
    func serveRunsJobs(store: HarnessStore) async throws {
        let scenario = try ErasureScenario(runInServe: true, store: store)
        let harness = scenario.harness
        let service = try await harness.start()
        _ = try await harness.post(harness.body(type: "account-delete", subject: subject))
        let store = service.context.store
        let jobID = try #require(try await store.jobs(subject: subject).first).id
        let giveUp = ContinuousClock.now + .seconds(10)
        var job = try await store.job(jobID)
        while job.status != .completed, ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(20))
            job = try await store.job(jobID)
        }
        #expect(job.status == .completed)
        let left = try ErasureScenario.rows(of: subject, in: scenario.appDatabase)
        #expect(left == 0)
        await harness.stop()
    }

    @Test("a failing target is retried with backoff, ends failed with its error code, and jobs retry runs it again")
    func failingTargetRetries() async throws {
        let scenario = try ErasureScenario(createDatabase: false)
        let harness = scenario.harness
        let service = try await harness.start()
        _ = try await harness.post(harness.body(type: "account-delete", subject: subject))
        let store = service.context.store
        let configuration = try harness.configuration
        let runner = ErasureScenario.runner(configuration: configuration, store: store, owner: "test")
        let jobID = try #require(try await store.jobs(subject: subject).first).id
        var job = try await store.job(jobID)
        let giveUp = ContinuousClock.now + .seconds(10)
        while job.job.steps[0].status != .failed, ContinuousClock.now < giveUp {
            try await runner.runOnce()
            try await Task.sleep(for: .milliseconds(5))
            job = try await store.job(jobID)
        }
        let step = job.job.steps[0]
        #expect(step.status == .failed)
        #expect(step.attempts == 3, "erasure.maxAttempts")
        #expect(step.evidence.errorCode == .sqliteOpen)
        // Jitter 0.999 of caps 20 ms and 40 ms: the three attempts span at least 59 ms.
        let first = try #require(job.stepsStartedAt[0])
        let last = try #require(step.lastAttemptAt)
        #expect(last.millisecondsSinceEpoch - first.millisecondsSinceEpoch >= 59)
        #expect(job.status == .failed, "self ran after the failure and the job is failed, not completed")

        try ErasureScenario.createAppDatabase(at: scenario.appDatabase)
        let (io, output, _) = CommandIO.capturing()
        let exit = await CommandLineInterface.run(
            arguments: ["jobs", "retry", String(jobID), "--config", harness.configurationFile], io: io)
        #expect(exit == 0)
        #expect(output().contains("job \(jobID): 1 steps sent back to pending"))
        try await runner.runOnce()
        let retried = try await store.job(jobID)
        #expect(retried.status == .completed)
        #expect(retried.job.steps[0].attempts == 1)
        await harness.stop()
    }

    @Test(
        "with secureDelete false the sqlite target's evidence says no hygiene was done and why, and the rows are still erased"
    )
    func secureDeleteOff() async throws {
        let scenario = try ErasureScenario()
        var config = try #require(
            JSONValue.parseIfValid(try Data(contentsOf: URL(fileURLWithPath: scenario.harness.configurationFile)))?
                .objectValue)
        var app = try #require(config["apps"]?.arrayValue?.first?.objectValue)
        var targets = try #require(app["targets"]?.objectValue)
        var appDB = try #require(targets["app-db"]?.objectValue)
        appDB["secureDelete"] = false
        targets["app-db"] = .object(appDB)
        app["targets"] = .object(targets)
        config["apps"] = [.object(app)]
        try scenario.harness.merge(config)
        let service = try await scenario.harness.start()
        _ = try await scenario.harness.post(scenario.harness.body(type: "account-delete", subject: subject))
        try await service.erasureRunner.runOnce()
        let job = try #require(try await service.context.store.jobs(subject: subject).first)
        #expect(job.status == .completed)
        // Not null, which reads as "nothing was needed": the erased bytes may stay in the file's free pages.
        #expect(job.job.steps[0].evidence.hygiene == ErasureHygiene.sqliteOff)
        #expect(try ErasureScenario.rows(of: subject, in: scenario.appDatabase) == 0)
        await scenario.harness.stop()
    }

    @Test("a verification query that still finds rows leaves the job unverified, never completed")
    func verificationNonZero() async throws {
        let scenario = try ErasureScenario(statements: ["DELETE FROM comments WHERE apple_sub = :sub"])
        let harness = scenario.harness
        let service = try await harness.start()
        _ = try await harness.post(harness.body(type: "account-delete", subject: subject))
        try await service.erasureRunner.runOnce()
        let store = service.context.store
        let jobs = try await store.jobs(subject: subject)
        let job = try #require(jobs.first)
        #expect(job.job.steps[0].status == .unverified)
        #expect(job.job.steps[0].evidence.verificationCount == 1)
        #expect(job.job.steps[0].evidence.errorCode == .verificationNonzero)
        #expect(job.status == .unverified)
        await harness.stop()
    }

    @Test("two runners on two stores over one database never execute the same step twice")
    func concurrentRunners() async throws {
        let scenario = try ErasureScenario(
            statements: ["INSERT INTO executions VALUES (:sub)"],
            verify: "SELECT count(*) FROM users WHERE apple_sub = :sub AND 0")
        let configuration = try scenario.harness.configuration
        let path = try #require(configuration.storage.sqlitePath)
        let first = try await SQLiteStore.open(path: path)
        let second = try await SQLiteStore.open(path: path)
        let jobs = 40
        let now = SystemClock().now()
        try await first.write { writer in
            for index in 0..<jobs {
                let plan = ErasureJobPlan(
                    policyReference: "default@1#test", trigger: .accountDeleted, eventTime: now,
                    origin: .rule(index: 0), categories: [.profile], targets: ["app-db"], notBefore: now,
                    deadline: now.adding(seconds: 3600), cancelIfRelinked: false, basis: nil)
                try writer.insertErasureJob(app: "shop", subject: "sub-\(index)", plan: plan, createdAt: now)
            }
        }
        let a = ErasureScenario.runner(configuration: configuration, store: first, owner: "runner-a")
        let b = ErasureScenario.runner(configuration: configuration, store: second, owner: "runner-b")
        async let ranA = a.runOnce()
        async let ranB = b.runOnce()
        let (summaryA, summaryB) = try await (ranA, ranB)
        #expect(summaryA.total + summaryB.total == jobs)

        let database = try ExternalSQLiteDatabase(path: scenario.appDatabase, busyTimeoutMilliseconds: 1000)
        let executions = try database.queryInteger(
            "SELECT count(*) FROM executions WHERE :sub = :sub", parameters: ["sub": ""])
        let distinct = try database.queryInteger(
            "SELECT count(DISTINCT apple_sub) FROM executions WHERE :sub = :sub", parameters: ["sub": ""])
        database.close()
        #expect(executions == Int64(jobs))
        #expect(distinct == Int64(jobs))
        let counts = try await first.read { try $0.erasureJobCounts() }
        #expect(counts[.completed] == jobs)
        await first.close()
        await second.close()
    }
}
