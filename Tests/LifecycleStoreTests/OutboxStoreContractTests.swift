import LifecycleCore
import LifecycleStore
import Synchronization
import Testing

/// What every ``Store`` promises about the transactional outbox. Parameterised by ``StoreFactory``.
@Suite("Store contract: outbox")
struct OutboxStoreContractTests {
    private var t0: Instant { Fixtures.receivedAt }
    /// Seconds a claim leases a message for.
    private var lease: Int64 { 30 }

    @Test("a message keeps its webhook id; a second message with the same id is refused", arguments: StoreFactory.all)
    func messageIDsAreUnique(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let first = Fixtures.outboxMessage(messageID: "msg_0190f5e6-0000-7000-8000-000000000001")
            let id = try await store.write { try $0.enqueueOutbox(first) }
            let again = Fixtures.outboxMessage(subject: "other", messageID: first.messageID)
            await #expect(throws: StoreError.self) { try await store.write { try $0.enqueueOutbox(again) } }
            #expect(try await store.read { try $0.outboxMessage(id: id) }?.messageID == first.messageID)
            #expect(try await store.read { try $0.outbox(limit: 10) }.count == 1)
        }
    }

    @Test(
        "an enqueued message is pending, and claiming it sets the lease and counts the attempt",
        arguments: StoreFactory.all)
    func enqueueAndClaim(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let new = Fixtures.outboxMessage(availableAt: t0)
            let id = try await store.write { try $0.enqueueOutbox(new) }
            let enqueued = try await store.read { try $0.outboxMessage(id: id) }
            #expect(
                enqueued
                    == OutboxMessage(
                        id: id, messageID: new.messageID, app: new.app, subject: new.subject, kind: new.kind,
                        payload: new.payload,
                        status: .pending, attempts: 0, createdAt: t0, availableAt: t0, leaseOwner: nil,
                        leasedUntil: nil,
                        lastAttemptAt: nil, lastError: nil, lastStatusCode: nil, deliveredAt: nil))
            #expect(try await store.read { try $0.nextOutboxDue() } == t0)

            let early = try await store.write { [t0] in
                try $0.claimOutbox(
                    now: t0.adding(milliseconds: -1), owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            #expect(early.isEmpty, "not available yet")
            let claimed = try await store.write { [t0] in
                try $0.claimOutbox(now: t0, owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 10)
            }
            var expected = try #require(enqueued)
            expected.attempts = 1
            expected.leaseOwner = "a"
            expected.leasedUntil = t0.adding(seconds: 30)
            #expect(claimed == [expected])
            #expect(try await store.read { try $0.outboxMessage(id: id) } == expected)
            #expect(
                try await store.read { try $0.nextOutboxDue() } == t0.adding(seconds: 30), "due when the lease ends")

            let delivered = try await store.write { [t0] in
                try $0.completeOutbox(id: id, owner: "a", at: t0.adding(seconds: 1), statusCode: 204)
            }
            #expect(delivered)
            let done = try #require(try await store.read { try $0.outboxMessage(id: id) })
            #expect(done.status == .delivered)
            #expect(done.deliveredAt == t0.adding(seconds: 1))
            #expect(done.lastAttemptAt == t0.adding(seconds: 1))
            #expect(done.lastStatusCode == 204)
            #expect(done.leasedUntil == nil)
            #expect(done.attempts == 1)
            #expect(try await store.read { try $0.nextOutboxDue() } == nil)
            #expect(try await store.read { try $0.outboxCounts() } == [.pending: 0, .delivered: 1, .dead: 0])
        }
    }

    @Test(
        "messages of one account are claimed one at a time in order, other accounts proceed",
        arguments: StoreFactory.all)
    func perAccountOrder(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            // x1's first message is available last, but still goes first for x1.
            let ids = try await store.write { [t0] writer in
                [
                    try writer.enqueueOutbox(Fixtures.outboxMessage(subject: "x1", availableAt: t0.adding(seconds: 5))),
                    try writer.enqueueOutbox(Fixtures.outboxMessage(subject: "x1", kind: "second", availableAt: t0)),
                    try writer.enqueueOutbox(Fixtures.outboxMessage(subject: "x2", availableAt: t0)),
                    try writer.enqueueOutbox(Fixtures.outboxMessage(app: "games", subject: "x1", availableAt: t0)),
                    try writer.enqueueOutbox(Fixtures.outboxMessage(subject: "x1", kind: "third", availableAt: t0)),
                ]
            }
            let now = t0.adding(seconds: 10)
            let leaseEnd = now.adding(seconds: lease)
            func claim() async throws -> [Int64] {
                try await store.write { try $0.claimOutbox(now: now, owner: "a", leaseUntil: leaseEnd, limit: 10) }.map(
                    \.id)
            }
            #expect(try await claim() == [ids[2], ids[3], ids[0]], "one per account, oldest available first")
            #expect(try await claim() == [], "x1's head is leased: its later messages wait")

            #expect(try await store.write { try $0.completeOutbox(id: ids[0], owner: "a", at: now, statusCode: 200) })
            #expect(try await claim() == [ids[1]])
            // A dead message does not hold the line either.
            #expect(
                try await store.write {
                    try $0.failOutbox(
                        id: ids[1], owner: "a", error: "HTTP 410", statusCode: 410, nextAttemptAt: nil, at: now)
                })
            #expect(try await claim() == [ids[4]])
        }
    }

    @Test(
        "an expired lease lets another runner claim, and the first runner is then refused", arguments: StoreFactory.all)
    func leaseExpiry(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let id = try await store.write { [t0] in try $0.enqueueOutbox(Fixtures.outboxMessage(availableAt: t0)) }
            let leaseEnd = t0.adding(seconds: lease)
            let first = try await store.write { [t0] in
                try $0.claimOutbox(now: t0, owner: "a", leaseUntil: leaseEnd, limit: 1)
            }
            #expect(first.map(\.id) == [id])
            let whileLeased = try await store.write { [t0] in
                try $0.claimOutbox(
                    now: leaseEnd.adding(milliseconds: -1), owner: "b", leaseUntil: t0.adding(seconds: 99), limit: 1)
            }
            #expect(whileLeased.isEmpty)
            let afterExpiry = try await store.write {
                try $0.claimOutbox(now: leaseEnd, owner: "b", leaseUntil: leaseEnd.adding(seconds: 30), limit: 1)
            }
            #expect(afterExpiry.map(\.id) == [id])
            #expect(afterExpiry.first?.attempts == 2)
            #expect(afterExpiry.first?.leaseOwner == "b")

            let (completeByA, failByA, completeByB) = try await store.write { writer in
                (
                    try writer.completeOutbox(id: id, owner: "a", at: leaseEnd, statusCode: 200),
                    try writer.failOutbox(
                        id: id, owner: "a", error: "timeout", statusCode: nil, nextAttemptAt: nil, at: leaseEnd),
                    try writer.completeOutbox(id: id, owner: "b", at: leaseEnd, statusCode: 200)
                )
            }
            #expect(!completeByA)
            #expect(!failByA)
            #expect(completeByB)
            #expect(try await store.read { try $0.outboxMessage(id: id) }?.status == .delivered)
            let again = try await store.write { writer in
                try writer.completeOutbox(id: id, owner: "b", at: leaseEnd, statusCode: 200)
            }
            #expect(!again, "a delivered message is not delivered twice")
        }
    }

    @Test(
        "a failed attempt waits for its next attempt, a final failure is dead, and retry revives it",
        arguments: StoreFactory.all)
    func failAndRetry(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let id = try await store.write { [t0] in try $0.enqueueOutbox(Fixtures.outboxMessage(availableAt: t0)) }
            let next = t0.adding(seconds: 60)
            let failed = try await store.write { [t0, lease] writer in
                _ = try writer.claimOutbox(now: t0, owner: "a", leaseUntil: t0.adding(seconds: lease), limit: 1)
                return try writer.failOutbox(
                    id: id, owner: "a", error: "HTTP 503", statusCode: 503, nextAttemptAt: next,
                    at: t0.adding(seconds: 1))
            }
            #expect(failed)
            let waiting = try #require(try await store.read { try $0.outboxMessage(id: id) })
            #expect(waiting.status == .pending)
            #expect(waiting.availableAt == next)
            #expect(waiting.leaseOwner == nil)
            #expect(waiting.leasedUntil == nil)
            #expect(waiting.attempts == 1)
            #expect(waiting.lastError == "HTTP 503")
            #expect(waiting.lastStatusCode == 503)
            #expect(waiting.lastAttemptAt == t0.adding(seconds: 1))
            #expect(try await store.read { try $0.nextOutboxDue() } == next)
            let completeAfterFail = try await store.write { writer in
                try writer.completeOutbox(id: id, owner: "a", at: next, statusCode: 200)
            }
            #expect(!completeAfterFail, "the lease ended with the failure")

            let tooEarly = try await store.write { [lease] in
                try $0.claimOutbox(
                    now: next.adding(milliseconds: -1), owner: "b", leaseUntil: next.adding(seconds: lease), limit: 1)
            }
            #expect(tooEarly.isEmpty)
            let dead = try await store.write { [lease] writer in
                let claimed = try writer.claimOutbox(
                    now: next, owner: "b", leaseUntil: next.adding(seconds: lease), limit: 1)
                #expect(claimed.map(\.id) == [id])
                return try writer.failOutbox(
                    id: id, owner: "b", error: "HTTP 500", statusCode: 500, nextAttemptAt: nil, at: next)
            }
            #expect(dead)
            let deadMessage = try #require(try await store.read { try $0.outboxMessage(id: id) })
            #expect(deadMessage.status == .dead)
            #expect(deadMessage.attempts == 2)
            #expect(deadMessage.lastError == "HTTP 500")
            #expect(try await store.read { try $0.outboxCounts() } == [.pending: 0, .delivered: 0, .dead: 1])
            #expect(try await store.read { try $0.nextOutboxDue() } == nil)
            let deadClaim = try await store.write { [lease] in
                try $0.claimOutbox(
                    now: next.adding(seconds: 3_600), owner: "b", leaseUntil: next.adding(seconds: 3_600 + lease),
                    limit: 1)
            }
            #expect(deadClaim.isEmpty, "a dead message is never claimed")

            let later = next.adding(seconds: 3_600)
            let retried = try await store.write { try $0.retryOutbox(id: id, now: later) }
            #expect(retried)
            let revived = try #require(try await store.read { try $0.outboxMessage(id: id) })
            #expect(revived.status == .pending)
            #expect(revived.attempts == 0)
            #expect(revived.availableAt == later)
            #expect(revived.lastError == "HTTP 500", "the last error stays for the record")
            #expect(
                try await store.write { try $0.retryOutbox(id: id, now: later) } == false,
                "only a dead message is retried")
            #expect(try await store.write { try $0.retryOutbox(id: 9_999, now: later) } == false)
            let reclaimed = try await store.write { [lease] in
                try $0.claimOutbox(now: later, owner: "c", leaseUntil: later.adding(seconds: lease), limit: 1)
            }
            #expect(reclaimed.map(\.attempts) == [1])
            #expect(try await store.read { try $0.outboxCounts() } == [.pending: 1, .delivered: 0, .dead: 0])
        }
    }

    @Test("the outbox lists by status in id order, page after page", arguments: StoreFactory.all)
    func listing(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let ids = try await store.write { [t0] writer in
                try (0..<7).map { try writer.enqueueOutbox(Fixtures.outboxMessage(subject: "s\($0)", availableAt: t0)) }
            }
            try await store.write { [t0, lease] writer in
                for message in try writer.claimOutbox(
                    now: t0, owner: "a", leaseUntil: t0.adding(seconds: lease), limit: 3)
                {
                    try writer.completeOutbox(id: message.id, owner: "a", at: t0, statusCode: 200)
                }
            }
            let all = try await store.read { try $0.outbox(limit: 100) }.map(\.id)
            #expect(all == ids)
            let firstPage = try await store.read { try $0.outbox(status: .pending, limit: 2) }.map(\.id)
            let secondPage = try await store.read {
                try $0.outbox(status: .pending, limit: 10, afterID: firstPage.last)
            }.map(\.id)
            #expect(firstPage + secondPage == Array(ids[3...]))
            #expect(try await store.read { try $0.outbox(status: .delivered, limit: 10) }.map(\.id) == Array(ids[..<3]))
            #expect(try await store.read { try $0.outbox(status: .dead, limit: 10) }.isEmpty)
        }
    }

    @Test(
        "two stores on one database never lease the same message twice, and keep each account's order",
        arguments: StoreFactory.all)
    func concurrentClaimers(factory: StoreFactory) async throws {
        let accounts = 6
        let perAccount = 20
        let total = accounts * perAccount
        try await withStoreLocation(factory) { location in
            let first = try await factory.open(location)
            let second = try await factory.open(location)
            let t0 = self.t0
            // Interleaved, so one account's messages are spread over the id range.
            try await first.write { writer in
                for round in 0..<perAccount {
                    for account in 0..<accounts {
                        try writer.enqueueOutbox(
                            Fixtures.outboxMessage(subject: "sub-\(account)", kind: "m\(round)", availableAt: t0))
                    }
                }
            }
            // Each completion stamps the next tick, so the delivery order is recorded in deliveredAt.
            let tick = DeliveryTicks()
            let claims = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for runner in 0..<8 {
                    let store = runner.isMultiple(of: 2) ? first : second
                    let owner = "runner-\(runner)"
                    group.addTask {
                        var mine: [Int64] = []
                        var idle = 0
                        while idle < 200 {
                            // Checked in the claim's own transaction: nothing older of the account is pending.
                            let (claimed, outOfOrder) = try await store.write { writer in
                                let claimed = try writer.claimOutbox(
                                    now: t0, owner: owner, leaseUntil: t0.adding(seconds: 3_600), limit: 3)
                                let pending = try writer.outbox(status: .pending, limit: total + 1)
                                let outOfOrder = claimed.filter { message in
                                    pending.contains { $0.subject == message.subject && $0.id < message.id }
                                }
                                return (claimed, outOfOrder.map(\.id))
                            }
                            #expect(outOfOrder.isEmpty, "claimed before an older message of its account")
                            #expect(Set(claimed.map(\.subject)).count == claimed.count, "one message per account")
                            if claimed.isEmpty {
                                if try await store.read({ try $0.outboxCounts()[.pending] }) == 0 { break }
                                idle += 1
                                try await Task.sleep(for: .milliseconds(2))
                                continue
                            }
                            idle = 0
                            for message in claimed {
                                mine.append(message.id)
                                let at = Instant(millisecondsSinceEpoch: tick.next())
                                let done = try await store.write {
                                    try $0.completeOutbox(id: message.id, owner: owner, at: at, statusCode: 200)
                                }
                                #expect(done)
                            }
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let claimed = claims.flatMap { $0 }
            #expect(claimed.count == total)
            #expect(Set(claimed).count == total, "no message was leased to two runners")
            #expect(claims.filter { !$0.isEmpty }.count > 1, "the work was shared")

            let messages = try await second.read { try $0.outbox(limit: total + 1) }
            await first.close()
            await second.close()
            #expect(messages.count == total)
            #expect(messages.allSatisfy { $0.status == .delivered && $0.attempts == 1 })
            for account in 0..<accounts {
                let delivered = messages.filter { $0.subject == "sub-\(account)" }
                #expect(delivered.map(\.kind) == (0..<perAccount).map { "m\($0)" })
                let times = delivered.compactMap(\.deliveredAt)
                #expect(times == times.sorted() && Set(times).count == perAccount, "delivered in enqueue order")
            }
        }
    }

    @Test("the outbox survives closing and reopening the store, leases included", arguments: StoreFactory.all)
    func survivesReopen(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let store = try await factory.open(location)
            let t0 = self.t0
            let (leased, waiting) = try await store.write { writer in
                let leased = try writer.enqueueOutbox(Fixtures.outboxMessage(subject: "a", availableAt: t0))
                let waiting = try writer.enqueueOutbox(
                    Fixtures.outboxMessage(subject: "b", availableAt: t0.adding(seconds: 60)))
                _ = try writer.claimOutbox(now: t0, owner: "a", leaseUntil: t0.adding(seconds: 30), limit: 10)
                return (leased, waiting)
            }
            let before = try await store.read { try $0.outbox(limit: 10) }
            await store.close()
            let reopened = try await factory.open(location)
            let after = try await reopened.read { try $0.outbox(limit: 10) }
            let claimNow = try await reopened.write {
                try $0.claimOutbox(
                    now: t0.adding(seconds: 1), owner: "b", leaseUntil: t0.adding(seconds: 90), limit: 10)
            }
            await reopened.close()
            #expect(after == before)
            #expect(after.map(\.id) == [leased, waiting])
            #expect(claimNow.isEmpty, "the lease outlived the restart")
        }
    }
}

/// A shared counter standing in for the clock of concurrent runners: each call returns the next tick.
private final class DeliveryTicks: Sendable {
    private let value = Atomic<Int64>(0)

    func next() -> Int64 {
        value.add(1, ordering: .sequentiallyConsistent).newValue
    }
}
