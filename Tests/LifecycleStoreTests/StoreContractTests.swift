import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` implementation promises its callers. Parameterised by ``StoreFactory``.
@Suite("Store contract")
struct StoreContractTests {
    @Test("a new notification is stored and reads back exactly as written", arguments: StoreFactory.all)
    func insertAndReadBack(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let new = Fixtures.notification(
                type: .emailDisabled, isPrivateEmail: true, email: "x7@privaterelay.appleid.com")
            let insertion = try await store.write { try $0.insertNotification(new) }
            guard case .inserted(let id) = insertion else {
                Issue.record("expected an insertion, got \(insertion)")
                return
            }
            let byJTI = try await store.read { try $0.notification(jti: new.notification.jti) }
            let byID = try await store.read { try $0.notification(id: id) }
            let expected = StoredNotification(
                id: id, app: new.app, notification: new.notification, receivedAt: new.receivedAt,
                bodySHA256: new.bodySHA256, source: new.source, sealedEmail: new.sealedEmail,
                sealedRawJWS: new.sealedRawJWS)
            #expect(new.notification.event.email == nil, "the e-mail travels sealed only")
            #expect(byJTI?.sealedEmail == Fixtures.sealed("x7@privaterelay.appleid.com"))
            #expect(byJTI == expected)
            #expect(byID == expected)
            #expect(try await store.read { try $0.notification(jti: "never-seen") } == nil)
        }
    }

    @Test("unknown event types are kept verbatim, deletion under its canonical name", arguments: StoreFactory.all)
    func eventTypesRoundTrip(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let deletion = Fixtures.notification(jti: "a", type: AppleEventType(wireValue: "account-delete"))
            let future = Fixtures.notification(jti: "b", type: .unknown("account-frozen"))
            _ = try await store.write { [try $0.insertNotification(deletion), try $0.insertNotification(future)] }
            let types = try await store.read {
                [
                    try $0.notification(jti: "a")?.notification.event.type,
                    try $0.notification(jti: "b")?.notification.event.type,
                ]
            }
            #expect(types == [.accountDeleted, .unknown("account-frozen")])
        }
    }

    @Test("a second delivery under the same jti is a duplicate of the first row", arguments: StoreFactory.all)
    func duplicateJTI(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let first = try await store.write { try $0.insertNotification(Fixtures.notification(jti: "same")) }
            // Even with a different event, the jti alone decides (RFC 8417 §2.2: jti identifies the token).
            let again = try await store.write {
                try $0.insertNotification(Fixtures.notification(jti: "same", type: .emailEnabled))
            }
            guard case .inserted(let id) = first else {
                Issue.record("expected an insertion, got \(first)")
                return
            }
            #expect(again == .duplicateJTI(existingID: id))
            #expect(try await store.read { try $0.notificationCount() } == 1)
        }
    }

    @Test("the same event resent under a new jti is a duplicate event", arguments: StoreFactory.all)
    func duplicateEvent(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let first = try await store.write { try $0.insertNotification(Fixtures.notification(jti: "first")) }
            let resent = try await store.write { try $0.insertNotification(Fixtures.notification(jti: "second")) }
            guard case .inserted(let id) = first else {
                Issue.record("expected an insertion, got \(first)")
                return
            }
            #expect(resent == .duplicateEvent(existingID: id))
            #expect(try await store.read { try $0.notification(jti: "second") } == nil)
        }
    }

    @Test(
        "events differing in app, sub, type or time are all distinct",
        arguments: StoreFactory.all)
    func distinctEvents(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let variants = [
                Fixtures.notification(jti: "base"),
                Fixtures.notification(jti: "other-app", app: "games"),
                Fixtures.notification(jti: "other-sub", sub: "009999.aaaa.0001"),
                Fixtures.notification(jti: "other-type", type: .accountDeleted),
                Fixtures.notification(jti: "other-time", eventTimeMs: 1_752_572_190_720),
            ]
            let results = try await store.write { writer in try variants.map { try writer.insertNotification($0) } }
            #expect(results.allSatisfy { if case .inserted = $0 { true } else { false } })
            #expect(try await store.read { try $0.notificationCount() } == variants.count)
        }
    }

    @Test(
        "the newest notification's receipt time: nil for an empty inbox, else the latest", arguments: StoreFactory.all)
    func latestReceipt(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let empty = try await store.read { try $0.latestNotificationReceivedAt() }
            #expect(empty == nil)
            let later = {
                var notification = Fixtures.notification(jti: "later", sub: "000002.b.0002")
                notification.receivedAt = Fixtures.receivedAt.adding(seconds: 90)
                return notification
            }()
            _ = try await store.write { writer in
                (try writer.insertNotification(later), try writer.insertNotification(Fixtures.notification()))
            }
            let latest = try await store.read { try $0.latestNotificationReceivedAt() }
            #expect(latest == later.receivedAt)
        }
    }

    @Test("a rejection keeps reason, time, size, hash and audience, newest first", arguments: StoreFactory.all)
    func rejections(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let older = Fixtures.rejection(reason: .unknownKid, bodySize: 0, audience: nil, source: "replay")
            let newer = Fixtures.rejection(reason: .expired, bodySize: 65_536)
            try await store.write { try $0.insertRejection(older) }
            try await store.write { try $0.insertRejection(newer) }
            let stored = try await store.read { try $0.rejections(limit: 10) }
            #expect(stored.map(\.rejection) == [newer, older])
            #expect(Set(stored.map(\.id)).count == 2)
            #expect(try await store.read { try $0.rejections(limit: 1) }.map(\.rejection) == [newer])
            #expect(try await store.read { try $0.rejectionCount() } == 2)
        }
    }

    @Test(
        "heartbeats are recorded once per instant and listed by time; the first of any instance is kept apart",
        arguments: StoreFactory.all)
    func heartbeats(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let t0 = Instant(millisecondsSinceEpoch: 1_752_572_000_000)
            let none = try await store.read { try $0.firstHeartbeat() }
            #expect(none == nil)
            try await store.write { writer in
                try writer.recordHeartbeat(instance: "b", at: t0.adding(seconds: 60))
                try writer.recordHeartbeat(instance: "a", at: t0)
                try writer.recordHeartbeat(instance: "a", at: t0)
                try writer.recordHeartbeat(instance: "a", at: t0.adding(seconds: 120))
            }
            let window = try await store.read { try $0.heartbeats(from: t0, to: t0.adding(seconds: 120)) }
            #expect(window == [Heartbeat(instance: "a", at: t0), Heartbeat(instance: "b", at: t0.adding(seconds: 60))])
            let first = try await store.read { try $0.firstHeartbeat() }
            #expect(first == t0)
        }
    }

    @Test("200 concurrent writes are each committed once and survive a restart", arguments: StoreFactory.all)
    func concurrentWritesAreDurable(factory: StoreFactory) async throws {
        let writes = 200
        try await withStoreLocation(factory) { location in
            let store = try await factory.open(location)
            let results = try await withThrowingTaskGroup(of: InboxInsertion.self) { group in
                for index in 0..<writes {
                    group.addTask {
                        try await store.write {
                            try $0.insertNotification(
                                Fixtures.notification(jti: "jti-\(index)", sub: "sub-\(index)"))
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == writes)
            #expect(results.allSatisfy { if case .inserted = $0 { true } else { false } })
            let statistics = store.statistics
            #expect(statistics.committedWrites == writes)
            #expect(statistics.failedCommits == 0)
            await store.close()

            let reopened = try await factory.open(location)
            let (count, missing) = try await reopened.read { reader in
                let missing = try (0..<writes).filter { try reader.notification(jti: "jti-\($0)") == nil }
                return (try reader.notificationCount(), missing)
            }
            await reopened.close()
            #expect(count == writes)
            #expect(missing.isEmpty)
        }
    }

    @Test(
        "concurrent deliveries of one notification store it exactly once",
        arguments: StoreFactory.all, [true, false])
    func concurrentDuplicates(factory: StoreFactory, sameJTI: Bool) async throws {
        try await withStore(factory) { store, _ in
            let deliveries = 20
            let results = try await withThrowingTaskGroup(of: InboxInsertion.self) { group in
                for index in 0..<deliveries {
                    group.addTask {
                        try await store.write {
                            try $0.insertNotification(Fixtures.notification(jti: sameJTI ? "same" : "jti-\(index)"))
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let inserted = results.compactMap { if case .inserted(let id) = $0 { id } else { nil } }
            #expect(inserted.count == 1)
            let expectedDuplicate: InboxInsertion =
                sameJTI ? .duplicateJTI(existingID: inserted[0]) : .duplicateEvent(existingID: inserted[0])
            #expect(results.filter { $0 == expectedDuplicate }.count == deliveries - 1)
            #expect(try await store.read { try $0.notificationCount() } == 1)
        }
    }

    @Test("a write body that throws rolls back only its own rows", arguments: StoreFactory.all)
    func throwingBodyRollsBackAlone(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let writes = 40
            let failing: Set<Int> = [3, 17, 31]
            let outcomes = await withTaskGroup(of: (Int, Result<Void, any Error>).self) { group in
                for index in 0..<writes {
                    group.addTask {
                        let result = await Result {
                            try await store.write { writer in
                                try writer.insertRejection(Fixtures.rejection(source: "write-\(index)"))
                                _ = try writer.insertNotification(
                                    Fixtures.notification(jti: "jti-\(index)", sub: "sub-\(index)"))
                                if failing.contains(index) { throw PlannedFailure(index: index) }
                            }
                        }
                        return (index, result)
                    }
                }
                return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            for (index, outcome) in outcomes {
                if failing.contains(index) {
                    #expect(throws: PlannedFailure(index: index)) { try outcome.get() }
                } else {
                    #expect(throws: Never.self) { try outcome.get() }
                }
            }
            let (notifications, sources) = try await store.read { reader in
                (try reader.notificationCount(), Set(try reader.rejections(limit: 1_000).map(\.rejection.source)))
            }
            #expect(notifications == writes - failing.count)
            #expect(sources == Set((0..<writes).filter { !failing.contains($0) }.map { "write-\($0)" }))
            #expect(store.statistics.rolledBackWrites == failing.count)
        }
    }

    @Test("a closed store refuses reads and writes", arguments: StoreFactory.all)
    func closedStore(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let store = try await factory.open(location)
            await store.close()
            await #expect(throws: StoreError.closed) { try await store.write { try $0.notificationCount() } }
            await #expect(throws: StoreError.closed) { try await store.read { try $0.notificationCount() } }
            await store.close()
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
