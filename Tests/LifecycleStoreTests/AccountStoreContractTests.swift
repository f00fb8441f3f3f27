import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about accounts and their history. Parameterised by ``StoreFactory``.
@Suite("Store contract: accounts and history")
struct AccountStoreContractTests {
    @Test(
        "an account reads back with every field, whether set or empty",
        arguments: StoreFactory.all, [Fixtures.fullAccount, Fixtures.sparseAccount])
    func accountRoundTrip(factory: StoreFactory, record: AccountRecord) async throws {
        try await withStore(factory) { store, _ in
            try await store.write { try $0.saveAccount(app: "shop", subject: "sub-a", record: record) }
            let (read, otherApp, otherSub) = try await store.read { reader in
                (
                    try reader.account(app: "shop", subject: "sub-a"),
                    try reader.account(app: "games", subject: "sub-a"),
                    try reader.account(app: "shop", subject: "sub-b")
                )
            }
            #expect(read == record)
            #expect(otherApp == nil)
            #expect(otherSub == nil)
        }
    }

    static func token(_ sealed: [UInt8], sub: String = "sub-a", at seconds: Int64 = 0) -> NewAppleToken {
        NewAppleToken(
            app: "shop", subject: sub, clientID: "com.example.shop", sealedRefreshToken: sealed,
            source: .authorizationCode, linkedAt: Fixtures.receivedAt.adding(seconds: seconds))
    }

    @Test("saving an account again replaces its record and keeps its sealed Apple token", arguments: StoreFactory.all)
    func upsertKeepsToken(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let sealed: [UInt8] = [0x00, 0x01, 0xFE, 0xFF, 0x00]
            let missingSet = try await store.write { writer in
                let missing = try writer.saveAppleToken(Self.token([1]))
                try writer.saveAccount(app: "shop", subject: "sub-a", record: Fixtures.sparseAccount)
                try writer.saveAppleToken(Self.token(sealed))
                try writer.saveAccount(app: "shop", subject: "sub-a", record: Fixtures.fullAccount)
                return missing
            }
            #expect(missingSet == false, "no account, so no token is stored")
            let (record, token, count) = try await store.read { reader in
                (
                    try reader.account(app: "shop", subject: "sub-a"),
                    try reader.appleToken(app: "shop", subject: "sub-a"),
                    try reader.accountCount(app: nil)
                )
            }
            #expect(record == Fixtures.fullAccount)
            #expect(token?.sealedRefreshToken == sealed)
            #expect(token?.vaultState == .held(since: Fixtures.receivedAt))
            #expect(count == 1)

            let dropped = try await store.write {
                try $0.dropAppleToken(app: "shop", subject: "sub-a", at: Fixtures.receivedAt.adding(seconds: 5))
            }
            #expect(dropped)
            let after = try await store.read { try $0.appleToken(app: "shop", subject: "sub-a") }
            #expect(after?.sealedRefreshToken == nil)
            #expect(after?.droppedAt == Fixtures.receivedAt.adding(seconds: 5))
            #expect(after?.vaultState == .notHeld)
            #expect(
                try await store.write { try $0.dropAppleToken(app: "shop", subject: "sub-a", at: Fixtures.receivedAt) }
                    == false)
            #expect(try await store.read { try $0.account(app: "shop", subject: "sub-a") } == Fixtures.fullAccount)
        }
    }

    @Test(
        "the token vault keeps one row per account: a new token replaces the old and clears its dropped time",
        arguments: StoreFactory.all)
    func tokenVaultRow(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            try await store.write { writer in
                try writer.saveAccount(app: "shop", subject: "sub-a", record: Fixtures.sparseAccount)
                try writer.saveAccount(app: "shop", subject: "sub-b", record: Fixtures.sparseAccount)
                try writer.saveAppleToken(Self.token([1, 2]))
                try writer.dropAppleToken(app: "shop", subject: "sub-a", at: Fixtures.receivedAt.adding(seconds: 1))
                var replacement = Self.token([3, 4], at: 10)
                replacement.source = .refreshToken
                replacement.clientID = "com.example.shop.web"
                try writer.saveAppleToken(replacement)
            }
            let (a, b) = try await store.read { reader in
                (
                    try reader.appleToken(app: "shop", subject: "sub-a"),
                    try reader.appleToken(app: "shop", subject: "sub-b")
                )
            }
            #expect(b == nil, "an account without a token has no row")
            let row = try #require(a)
            #expect(row.sealedRefreshToken == [3, 4])
            #expect(row.source == .refreshToken)
            #expect(row.clientID == "com.example.shop.web")
            #expect(row.linkedAt == Fixtures.receivedAt.adding(seconds: 10))
            #expect(row.droppedAt == nil && row.revokedAt == nil && row.lastProbeAt == nil)
        }
    }

    @Test(
        "accounts page by sub in byte order, one app at a time, none skipped or repeated", arguments: StoreFactory.all)
    func keysetPaging(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            // Mixed case and digits: byte order puts "0" < "A" < "a", unlike a locale-aware sort.
            let subjects = (0..<23).map { "00\($0 % 10).\($0 % 3 == 0 ? "A" : "a")\($0).0957" }
            try await store.write { writer in
                for subject in subjects.shuffled() {
                    try writer.saveAccount(app: "shop", subject: subject, record: Fixtures.sparseAccount)
                }
                try writer.saveAccount(app: "games", subject: "000.0", record: Fixtures.fullAccount)
                try writer.saveAccount(app: "games", subject: "zzz", record: Fixtures.fullAccount)
            }
            var walked: [String] = []
            var after: String?
            var pages = 0
            while true {
                let page = try await store.read { [after] in try $0.accounts(app: "shop", afterSubject: after, limit: 5)
                }
                if page.isEmpty { break }
                #expect(page.allSatisfy { $0.record == Fixtures.sparseAccount })
                walked += page.map(\.subject)
                after = page.last?.subject
                pages += 1
            }
            #expect(walked == subjects.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            #expect(pages == 5)
            let counts = try await store.read {
                [try $0.accountCount(app: "shop"), try $0.accountCount(app: "games"), try $0.accountCount(app: nil)]
            }
            #expect(counts == [23, 2, 25])
        }
    }

    @Test(
        "the reconciler's view pages by sub in byte order from any point, with each account's erasure state",
        arguments: StoreFactory.all)
    func observedAccountPaging(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let subjects = (0..<23).map { "00\($0 % 10).\($0 % 3 == 0 ? "A" : "a")\($0).0957" }
            let deleted = subjects[4]
            let plan = ErasureJobPlan(
                policyReference: "gdpr@1#0", trigger: .accountDeleted, eventTime: Fixtures.instant(-86_400),
                origin: .rule(index: 0), categories: [.profile], targets: ["app-db"],
                notBefore: Fixtures.instant(-86_400), deadline: Fixtures.instant(-3600), cancelIfRelinked: false,
                basis: nil)
            try await store.write { writer in
                for subject in subjects.shuffled() {
                    try writer.saveAccount(
                        app: "shop", subject: subject,
                        record: subject == deleted ? Fixtures.fullAccount : Fixtures.sparseAccount)
                }
                try writer.insertErasureJob(app: "shop", subject: deleted, plan: plan, createdAt: plan.eventTime)
                try writer.saveAccount(app: "games", subject: "000.0", record: Fixtures.sparseAccount)
                try writer.saveAccount(app: "games", subject: "zzz", record: Fixtures.sparseAccount)
            }
            var walked: [ObservedAccount] = []
            var after: String?
            while true {
                let page = try await store.read { [after] in
                    try $0.observedAccounts(app: "shop", afterSubject: after, limit: 5)
                }
                if page.isEmpty { break }
                walked += page
                after = page.last?.subject
            }
            #expect(walked.map(\.subject) == subjects.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            let withJob = try #require(walked.first { $0.subject == deleted })
            #expect(withJob.erasureStatus == .pending)
            #expect(withJob.erasureDeadline == plan.deadline)
            #expect(walked.filter { $0.erasureStatus != ObservedErasureStatus.none }.count == 1)
            let tail = try await store.read { try $0.observedAccounts(app: "games", afterSubject: "000.0", limit: 5) }
            #expect(tail.map(\.subject) == ["zzz"])
        }
    }

    /// Inputs run through the real machine, so the history holds every disposition and effects that carry a
    /// value (a trigger, a flag).
    private static func historySequence() -> [AccountHistoryEntry] {
        var machine = AccountStateMachine()
        let inputs: [(AccountInputKind, Int64)] = [
            (.linked, -600), (.emailDisabled, -500), (.consentRevoked, -400), (.emailEnabled, -550),
            (.consentRevoked, -400), (.accountDeleted, -300), (.linked, -100),
        ]
        return inputs.enumerated().map { index, input in
            machine.apply(
                AccountInput(
                    kind: input.0, eventTime: Fixtures.instant(input.1), receivedAt: Fixtures.instant(Int64(index)),
                    identity: "input-\(index)")
            ).history
        }
    }

    @Test("history reads back oldest first with every field, source and notification", arguments: StoreFactory.all)
    func historyRoundTrip(factory: StoreFactory) async throws {
        let entries = Self.historySequence()
        #expect(
            Set(entries.map(\.disposition))
                == [.applied, .stale, .duplicate, .ignored(.accountDeleted)], "the sequence covers every disposition")
        try await withStore(factory) { store, _ in
            let (notificationID, ids) = try await store.write { writer in
                guard case .inserted(let notificationID) = try writer.insertNotification(Fixtures.notification()) else {
                    throw PlannedFailure(index: 0)
                }
                var ids: [Int64] = []
                for (index, entry) in entries.enumerated() {
                    let fromNotification = index.isMultiple(of: 2)
                    ids.append(
                        try writer.appendHistory(
                            app: "shop", subject: "sub-a", entry: entry,
                            source: fromNotification ? "notification" : "admin",
                            notificationID: fromNotification ? notificationID : nil))
                }
                try writer.appendHistory(
                    app: "shop", subject: "sub-b", entry: entries[0], source: "reconciler", notificationID: nil)
                return (notificationID, ids)
            }
            let stored = try await store.read { try $0.history(app: "shop", subject: "sub-a") }
            #expect(stored.map(\.entry) == entries)
            #expect(stored.map(\.id) == ids)
            #expect(ids == ids.sorted())
            #expect(stored.map(\.source) == entries.indices.map { $0.isMultiple(of: 2) ? "notification" : "admin" })
            #expect(stored.map(\.notificationID) == entries.indices.map { $0.isMultiple(of: 2) ? notificationID : nil })
            #expect(
                try await store.read { try $0.history(app: "shop", subject: "sub-b") }.map(\.source) == ["reconciler"])
            #expect(try await store.read { try $0.history(app: "games", subject: "sub-a") }.isEmpty)

            let transitions = try await store.read { try $0.transitionCounts() }.map {
                "\($0.from)>\($0.to)=\($0.count)"
            }
            // sub-a: none>linked, linked>email-off, email-off>consent-revoked, consent-revoked>deleted;
            // sub-b: none>linked. Stale, duplicate and ignored inputs moved nothing.
            #expect(
                transitions == [
                    "consent-revoked>deleted=1", "email-off>consent-revoked=1", "linked>email-off=1", "none>linked=2",
                ])
        }
    }

    @Test("every effect, with the trigger or flag it carries, reads back from history", arguments: StoreFactory.all)
    func everyEffectRoundTrips(factory: StoreFactory) async throws {
        let effects: [AccountEffect] =
            [
                .terminateSessions, .dropAppleTokens, .revokeAppleTokens, .emailForwardingChanged(enabled: true),
                .emailForwardingChanged(enabled: false), .cancelRelinkCancellableJobs,
            ] + PolicyTrigger.allCases.map { .schedulePolicy(trigger: $0) }
        let entries = [effects, []].map { effects in
            AccountHistoryEntry(
                identity: "jti-\(effects.count)", kind: .inAppDeletion, eventTime: Fixtures.instant(-1),
                receivedAt: Fixtures.instant(0), disposition: .applied, fromState: nil, toState: .deleted,
                effects: effects)
        }
        try await withStore(factory) { store, _ in
            try await store.write { writer in
                for entry in entries {
                    try writer.appendHistory(
                        app: "shop", subject: "sub-a", entry: entry, source: "admin", notificationID: nil)
                }
            }
            let stored = try await store.read { try $0.history(app: "shop", subject: "sub-a") }
            #expect(stored.map(\.entry) == entries)
        }
    }

    @Test("a history line naming a notification that is not in the inbox is refused", arguments: StoreFactory.all)
    func historyNeedsItsNotification(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let entry = Self.historySequence()[0]
            await #expect(throws: StoreError.self) {
                try await store.write {
                    try $0.appendHistory(
                        app: "shop", subject: "sub-a", entry: entry, source: "notification", notificationID: 4_242)
                }
            }
            await #expect(throws: StoreError.self) {
                try await store.write {
                    try $0.appendHistory(
                        app: "shop", subject: "sub-a", entry: entry, source: "carrier-pigeon", notificationID: nil)
                }
            }
            let history = try await store.read { try $0.history(app: "shop", subject: "sub-a") }
            #expect(history.isEmpty)
        }
    }

    @Test("accounts, tokens and history survive closing and reopening the store", arguments: StoreFactory.all)
    func survivesReopen(factory: StoreFactory) async throws {
        let entries = Self.historySequence()
        try await withStoreLocation(factory) { location in
            let store = try await factory.open(location)
            try await store.write { writer in
                try writer.saveAccount(app: "shop", subject: "sub-a", record: Fixtures.fullAccount)
                try writer.saveAppleToken(Self.token([9, 8, 7]))
                for entry in entries {
                    try writer.appendHistory(
                        app: "shop", subject: "sub-a", entry: entry, source: "replay", notificationID: nil)
                }
            }
            await store.close()
            let reopened = try await factory.open(location)
            let (record, token, history) = try await reopened.read { reader in
                (
                    try reader.account(app: "shop", subject: "sub-a"),
                    try reader.appleToken(app: "shop", subject: "sub-a"),
                    try reader.history(app: "shop", subject: "sub-a")
                )
            }
            await reopened.close()
            #expect(record == Fixtures.fullAccount)
            #expect(token?.sealedRefreshToken == [9, 8, 7])
            #expect(history.map(\.entry) == entries)
        }
    }
}
