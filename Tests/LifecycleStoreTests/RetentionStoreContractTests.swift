import LifecycleCore
import Testing

@testable import LifecycleStore

/// What every ``Store`` promises about ``StoreWriter/purgeExpired(_:before:limit:)``: only records of the kind
/// older than the cutoff go, oldest first, at most `limit` per call; the inbox row itself stays.
@Suite("Store contract: retention purge")
struct RetentionStoreContractTests {
    let now = Fixtures.instant(400 * 86_400)
    var cutoff: Instant { now.adding(seconds: -30 * 86_400) }
    var old: Instant { now.adding(seconds: -31 * 86_400) }
    var recent: Instant { now.adding(seconds: -29 * 86_400) }

    @Test(
        "each kind purges what is older than the cutoff and nothing newer, in batches of the limit",
        arguments: StoreFactory.all)
    func purgesOnlyExpired(factory: StoreFactory) async throws {
        let (old, recent, cutoff) = (self.old, self.recent, self.cutoff)
        try await withStore(factory) { store, _ in
            try await store.write { writer in
                for index in 0..<3 {
                    var notification = Fixtures.notification(
                        jti: "old-\(index)", sub: "sub-old-\(index)", email: "old\(index)@privaterelay.appleid.com")
                    notification.receivedAt = old
                    _ = try writer.insertNotification(notification)
                    var rejection = Fixtures.rejection()
                    rejection.receivedAt = old
                    try writer.insertRejection(rejection)
                    try writer.recordHeartbeat(instance: "a", at: old.adding(seconds: Int64(index)))
                }
                var fresh = Fixtures.notification(jti: "new", sub: "sub-new", email: "new@privaterelay.appleid.com")
                fresh.receivedAt = recent
                _ = try writer.insertNotification(fresh)
                var rejection = Fixtures.rejection()
                rejection.receivedAt = recent
                try writer.insertRejection(rejection)
                try writer.recordHeartbeat(instance: "a", at: recent)
                var machine = AccountStateMachine()
                for (identity, receivedAt) in [("old", old), ("new", recent)] {
                    let entry = machine.apply(
                        AccountInput(kind: .linked, eventTime: receivedAt, receivedAt: receivedAt, identity: identity)
                    ).history
                    try writer.appendHistory(
                        app: "shop", subject: "sub-a", entry: entry, source: "admin", notificationID: nil)
                }
            }
            // Outbox: delivered long ago, given up long ago, delivered lately, and one still pending from long ago.
            let ids = try await store.write { writer in
                try (0..<4).map { index in
                    try writer.enqueueOutbox(Fixtures.outboxMessage(subject: "sub-\(index)", availableAt: old))
                }
            }
            try await store.write { writer in
                _ = try writer.claimOutbox(now: old, owner: "w", leaseUntil: old.adding(seconds: 60), limit: 10)
                try writer.completeOutbox(id: ids[0], owner: "w", at: old, statusCode: 204)
                try writer.failOutbox(
                    id: ids[1], owner: "w", error: "http_500", statusCode: 500, nextAttemptAt: nil, at: old)
                try writer.completeOutbox(id: ids[2], owner: "w", at: recent, statusCode: 204)
            }
            // Findings: one resolved long ago, one resolved lately, one open since long ago.
            try await store.write { writer in
                for (index, resolvedAt) in [old, recent, nil].enumerated() {
                    guard
                        case .started(let run) = try writer.beginReconcileRun(
                            app: "shop", owner: "r", at: old, leaseUntil: old.adding(seconds: 60))
                    else { throw PlannedFailure(index: index) }
                    try writer.recordFindings(
                        app: "shop", runID: run,
                        findings: [Finding(code: .retainedAfterDeletion, subject: "sub-f\(index)", detail: "held")],
                        at: old)
                    try writer.finishReconcileRun(id: run, status: .completed, at: old, summary: nil, error: nil)
                    if let resolvedAt {
                        guard
                            case .started(let next) = try writer.beginReconcileRun(
                                app: "shop", owner: "r", at: resolvedAt, leaseUntil: resolvedAt.adding(seconds: 60))
                        else { throw PlannedFailure(index: 10 + index) }
                        try writer.resolveFindings(app: "shop", notSeenInRun: next, at: resolvedAt)
                        try writer.finishReconcileRun(
                            id: next, status: .completed, at: resolvedAt, summary: nil, error: nil)
                    }
                }
            }

            // Batches of two: the first call takes two of the three old payloads, the next the last one.
            let first = try await store.write { try $0.purgeExpired(.notificationPayloads, before: cutoff, limit: 2) }
            let second = try await store.write { try $0.purgeExpired(.notificationPayloads, before: cutoff, limit: 2) }
            let third = try await store.write { try $0.purgeExpired(.notificationPayloads, before: cutoff, limit: 2) }
            #expect([first, second, third] == [2, 1, 0])
            var purged: [RetentionKind: Int] = [:]
            for kind in RetentionKind.allCases where kind != .notificationPayloads {
                purged[kind] = try await store.write { try $0.purgeExpired(kind, before: cutoff, limit: 100) }
            }
            #expect(purged == [.rejections: 3, .heartbeats: 3, .history: 1, .outbox: 2, .findings: 1])

            try await store.read { reader in
                for index in 0..<3 {
                    let row = try #require(try reader.notification(jti: "old-\(index)"), "the inbox row stays")
                    #expect(row.sealedRawJWS == nil && row.sealedEmail == nil)
                }
                let fresh = try #require(try reader.notification(jti: "new"))
                #expect(fresh.sealedRawJWS != nil && fresh.sealedEmail != nil)
                #expect(try reader.rejections(limit: 10).map(\.rejection.receivedAt) == [recent])
                #expect(try reader.heartbeats(from: old.adding(seconds: -1), to: recent.adding(seconds: 1)).count == 1)
                #expect(try reader.history(app: "shop", subject: "sub-a").map(\.entry.identity) == ["new"])
                let outbox = try reader.outbox(limit: 10)
                #expect(Set(outbox.map(\.id)) == [ids[2], ids[3]], "the recent delivery and the pending one stay")
                let findings = try reader.findings(app: "shop", includeResolved: true, limit: 10, afterID: nil)
                #expect(Set(findings.compactMap(\.finding.subject)) == ["sub-f1", "sub-f2"])
            }
            // An event already received is still refused after its payload went.
            let replay = try await store.write { writer in
                var again = Fixtures.notification(jti: "old-0", sub: "sub-old-0")
                again.receivedAt = cutoff
                return try writer.insertNotification(again)
            }
            if case .inserted = replay { Issue.record("a purged notification's jti was accepted again") }
        }
    }
}
