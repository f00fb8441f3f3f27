import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about reconcile runs, findings and the observed accounts the reconciler
/// merges. Parameterised by ``StoreFactory``.
@Suite("Store contract: reconciler")
struct ReconcileStoreContractTests {
    private var t0: Instant { Fixtures.receivedAt }

    @Test(
        "one reconcile run at a time across two instances; an expired lease is abandoned, not waited for",
        arguments: StoreFactory.all)
    func oneRunAtATime(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let first = try await factory.open(location)
            let second = try await factory.open(location)
            let t0 = self.t0
            let started = try await first.write {
                try $0.beginReconcileRun(app: nil, owner: "a", at: t0, leaseUntil: t0.adding(seconds: 60))
            }
            let busy = try await second.write {
                try $0.beginReconcileRun(
                    app: "shop", owner: "b", at: t0.adding(seconds: 10), leaseUntil: t0.adding(seconds: 70))
            }
            let takeover = try await second.write {
                try $0.beginReconcileRun(
                    app: "shop", owner: "b", at: t0.adding(seconds: 61), leaseUntil: t0.adding(seconds: 120))
            }
            guard case .started(let firstID) = started, case .started(let secondID) = takeover else {
                Issue.record("expected two starts, got \(started) and \(takeover)")
                return
            }
            try await second.write {
                try $0.finishReconcileRun(
                    id: secondID, status: .completed, at: t0.adding(seconds: 90), summary: "ok", error: nil)
            }
            let runs = try await first.read { try $0.reconcileRuns(limit: 10) }
            await first.close()
            await second.close()
            #expect(
                busy
                    == .busy(
                        ReconcileRunHolder(id: firstID, owner: "a", startedAt: t0, leasedUntil: t0.adding(seconds: 60)))
            )
            #expect(runs.map(\.id) == [secondID, firstID], "newest first")
            #expect(runs.map(\.status) == [.completed, .abandoned])
            #expect(runs.first?.app == "shop" && runs.first?.summary == "ok")
            #expect(runs.last?.app == nil && runs.last?.error == "lease expired")
        }
    }

    @Test(
        "a run marked abandoned releases the lock before its lease ends; abandoning it again changes nothing",
        arguments: StoreFactory.all)
    func abandonedRunReleasesTheLock(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let first = try await factory.open(location)
            let second = try await factory.open(location)
            let t0 = self.t0
            let started = try await first.write {
                try $0.beginReconcileRun(app: nil, owner: "host:1:1", at: t0, leaseUntil: t0.adding(seconds: 300))
            }
            guard case .started(let id) = started else {
                Issue.record("expected a start, got \(started)")
                return
            }
            let abandoned = try await second.write {
                try $0.abandonReconcileRun(id: id, at: t0.adding(seconds: 5), reason: "holder host:1:1 is gone")
            }
            let again = try await second.write {
                try $0.abandonReconcileRun(id: id, at: t0.adding(seconds: 6), reason: "again")
            }
            let next = try await second.write {
                try $0.beginReconcileRun(
                    app: nil, owner: "host:2:2", at: t0.adding(seconds: 7), leaseUntil: t0.adding(seconds: 300))
            }
            let runs = try await first.read { try $0.reconcileRuns(limit: 10) }
            await first.close()
            await second.close()
            #expect(abandoned && !again)
            guard case .started = next else {
                Issue.record("the lock was not released: \(next)")
                return
            }
            #expect(runs.last?.status == .abandoned && runs.last?.error == "holder host:1:1 is gone")
        }
    }

    @Test(
        "a day's reports are recorded once per app: the second instance to record the same day is refused",
        arguments: StoreFactory.all)
    func dailyReportRecordedOnce(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let first = try await factory.open(location)
            let second = try await factory.open(location)
            let t0 = self.t0
            let record = DailyReportRecord(day: "2026-11-29", app: "shop", instance: "host-a:1:1", writtenAt: t0)
            let before = try await second.read { try $0.dailyReport(day: "2026-11-29", app: "shop") }
            let recorded = try await first.write { try $0.recordDailyReport(record) }
            let late = DailyReportRecord(
                day: "2026-11-29", app: "shop", instance: "host-b:2:2", writtenAt: t0.adding(seconds: 30))
            let again = try await second.write { try $0.recordDailyReport(late) }
            let otherApp = try await second.write {
                try $0.recordDailyReport(
                    DailyReportRecord(day: "2026-11-29", app: "blog", instance: "b", writtenAt: t0))
            }
            let nextDay = try await second.write {
                try $0.recordDailyReport(
                    DailyReportRecord(day: "2026-11-30", app: "shop", instance: "b", writtenAt: t0))
            }
            let stored = try await second.read { try $0.dailyReport(day: "2026-11-29", app: "shop") }
            await first.close()
            await second.close()
            #expect(before == nil)
            #expect(recorded && !again)
            #expect(otherApp && nextDay, "one record per (day, app)")
            #expect(stored == record, "the first record stays")
        }
    }

    @Test(
        "an app's last daily report day is the latest recorded for it, not another app's; none before any",
        arguments: StoreFactory.all)
    func lastDailyReportDay(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let store = try await factory.open(location)
            let t0 = self.t0
            let none = try await store.read { try $0.lastDailyReportDay(app: "shop") }
            for (day, app) in [
                ("2026-11-28", "shop"), ("2026-11-30", "shop"), ("2026-11-29", "shop"), ("2026-12-01", "blog"),
            ] {
                _ = try await store.write {
                    try $0.recordDailyReport(DailyReportRecord(day: day, app: app, instance: "a", writtenAt: t0))
                }
            }
            let shop = try await store.read { try $0.lastDailyReportDay(app: "shop") }
            let blog = try await store.read { try $0.lastDailyReportDay(app: "blog") }
            let other = try await store.read { try $0.lastDailyReportDay(app: "news") }
            await store.close()
            #expect(none == nil)
            #expect(shop == "2026-11-30")
            #expect(blog == "2026-12-01")
            #expect(other == nil)
        }
    }

    @Test(
        "a finding seen again is refreshed, not duplicated, and one not seen again is resolved",
        arguments: StoreFactory.all)
    func findingsLifecycle(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let t0 = self.t0
            let retained = Finding(code: .retainedAfterDeletion, subject: "sub-a", detail: "still held")
            let gap = Finding(
                code: .notificationGap, subject: nil, detail: "no instance up",
                window: FindingWindow(from: t0.adding(seconds: -600), to: t0.adding(seconds: -60)))
            let (run1, run2) = try await store.write { writer in
                guard
                    case .started(let run1) = try writer.beginReconcileRun(
                        app: "shop", owner: "a", at: t0, leaseUntil: t0.adding(seconds: 60))
                else { throw PlannedFailure(index: 1) }
                try writer.recordFindings(app: "shop", runID: run1, findings: [retained, gap], at: t0)
                try writer.finishReconcileRun(id: run1, status: .completed, at: t0, summary: nil, error: nil)
                guard
                    case .started(let run2) = try writer.beginReconcileRun(
                        app: "shop", owner: "a", at: t0.adding(seconds: 100), leaseUntil: t0.adding(seconds: 160))
                else { throw PlannedFailure(index: 2) }
                try writer.recordFindings(app: "shop", runID: run2, findings: [retained], at: t0.adding(seconds: 100))
                return (run1, run2)
            }
            let resolved = try await store.write {
                try $0.resolveFindings(app: "shop", notSeenInRun: run2, at: t0.adding(seconds: 101))
            }
            let (open, all, otherApp) = try await store.read { reader in
                (
                    try reader.findings(app: "shop", includeResolved: false, limit: 10, afterID: nil),
                    try reader.findings(app: nil, includeResolved: true, limit: 10, afterID: nil),
                    try reader.findings(app: "blog", includeResolved: true, limit: 10, afterID: nil)
                )
            }
            #expect(resolved == 1)
            #expect(open.map(\.finding) == [retained])
            #expect(open.first?.firstSeenAt == t0 && open.first?.lastSeenAt == t0.adding(seconds: 100))
            #expect(open.first?.lastRunID == run2)
            #expect(all.count == 2)
            #expect(all.last?.finding == gap && all.last?.lastRunID == run1)
            #expect(all.last?.resolvedAt == t0.adding(seconds: 101))
            #expect(otherApp.isEmpty)
        }
    }

    @Test("observed accounts page by sub in byte order with their erasure state", arguments: StoreFactory.all)
    func observedAccounts(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let t0 = self.t0
            // Byte order puts upper case before lower case and "Z" before "a"; a locale order would not.
            let subjects = ["b.2", "Z.1", "a.3", "B.4", "0.5"]
            let deadline = t0.adding(seconds: 86_400)
            try await store.write { writer in
                for subject in subjects {
                    var record = Fixtures.sparseAccount
                    if subject == "a.3" {
                        record.state = .deleted
                        record.deletedAt = t0
                    }
                    try writer.saveAccount(app: "shop", subject: subject, record: record)
                }
                try writer.saveAccount(app: "blog", subject: "a.3", record: Fixtures.sparseAccount)
                try writer.insertErasureJob(
                    app: "shop", subject: "a.3",
                    plan: ErasureJobPlan(
                        policyReference: "p@1#x", trigger: .accountDeleted, eventTime: t0, origin: .rule(index: 0),
                        categories: [.profile], targets: ["app-db"], notBefore: t0, deadline: deadline,
                        cancelIfRelinked: false, basis: nil),
                    createdAt: t0)
            }
            let (firstPage, secondPage, live) = try await store.read { reader in
                (
                    try reader.observedAccounts(app: "shop", afterSubject: nil, limit: 3),
                    try reader.observedAccounts(app: "shop", afterSubject: "a.3", limit: 3),
                    try reader.liveAccountCount(app: "shop")
                )
            }
            #expect(firstPage.map(\.subject) == ["0.5", "B.4", "Z.1"])
            #expect(secondPage.map(\.subject) == ["b.2"])
            #expect(live == 4)
            let all = try await store.read { try $0.observedAccounts(app: "shop", afterSubject: nil, limit: 10) }
            let deleted = all.first { $0.subject == "a.3" }
            #expect(deleted?.state == .deleted && deleted?.deletedAt == t0)
            #expect(deleted?.erasureStatus == .pending && deleted?.erasureDeadline == deadline)
            #expect(all.first { $0.subject == "b.2" }?.erasureStatus == ObservedErasureStatus.none)
        }
    }
}
