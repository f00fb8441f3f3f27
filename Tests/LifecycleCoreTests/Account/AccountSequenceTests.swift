import Testing

@testable import LifecycleCore

@Suite("Account input sequences")
struct AccountSequenceTests {
    @Test("a redelivered input is recorded as a duplicate and repeats no effect")
    func duplicates() {
        let (machine, outcomes) = run([
            input(.linked, at: 10), input(.consentRevoked, at: 100, id: "jti-1"),
            input(.consentRevoked, at: 100, id: "jti-1"),
        ])
        #expect(outcomes.map(\.disposition) == [.applied, .applied, .duplicate])
        #expect(outcomes[2].effects.isEmpty)
        #expect(outcomes[2].record == outcomes[1].record)
        #expect(machine.state == .consentRevoked)
    }

    @Test(
        "credentials-invalid ends sessions without assuming deletion; Apple's consent-revoked after it schedules the rules"
    )
    func credentialsInvalidThenConsentRevoked() {
        let (machine, outcomes) = run([
            input(.linked, at: 10), input(.credentialsInvalid, at: 100), input(.consentRevoked, at: 150),
            input(.linked, at: 200),
        ])
        #expect(outcomes.map(\.disposition) == [.applied, .applied, .applied, .applied])
        #expect(outcomes[1].state == .consentRevoked)
        #expect(outcomes[1].effects == [.terminateSessions, .dropAppleTokens], "no erasure rule scheduled")
        #expect(outcomes[2].effects == [.schedulePolicy(trigger: .consentRevoked)], "sessions already ended")
        #expect(outcomes[3].effects == [.cancelRelinkCancellableJobs])
        #expect(machine.state == .linked)
    }

    @Test("an e-mail event older than the last e-mail event is stale and changes nothing")
    func staleEmailEvent() {
        let (machine, outcomes) = run([
            input(.emailDisabled, at: 100), input(.emailEnabled, at: 200), input(.emailDisabled, at: 150),
        ])
        #expect(outcomes.map(\.disposition) == [.applied, .applied, .stale])
        #expect(outcomes[2].effects.isEmpty)
        #expect(outcomes[2].record == outcomes[1].record)
        #expect(machine.state == .linked)
    }

    @Test("an older sign-in after a newer revocation is stale: sessions stay ended")
    func staleSignIn() {
        let (machine, outcomes) = run([input(.consentRevoked, at: 200), input(.linked, at: 100)])
        #expect(outcomes[1].disposition == .stale)
        #expect(outcomes[1].effects.isEmpty)
        #expect(machine.state == .consentRevoked)
    }

    @Test("an older e-mail event after a newer revocation leaves the account revoked")
    func olderEmailAfterRevocation() {
        let (machine, outcomes) = run([
            input(.linked, at: 50), input(.consentRevoked, at: 200), input(.emailDisabled, at: 100),
        ])
        #expect(outcomes[2].state == .consentRevoked)
        #expect(!outcomes[2].effects.contains(.cancelRelinkCancellableJobs))
        #expect(!outcomes[2].effects.contains(.terminateSessions))
        #expect(machine.record?.accessInput == .consentRevoked)
        #expect(machine.record?.lastAppliedEventTime == Instant(secondsSinceEpoch: 200))
    }

    @Test("a newer sign-in re-links a revoked account, cancels cancellable jobs, and keeps forwarding off")
    func relink() {
        let (machine, outcomes) = run([
            input(.linked, at: 50), input(.emailDisabled, at: 60), input(.consentRevoked, at: 100),
            input(.linked, at: 300),
        ])
        #expect(outcomes[3].disposition == .applied)
        #expect(outcomes[3].effects == [.cancelRelinkCancellableJobs])
        #expect(outcomes[3].history.fromState == .consentRevoked)
        #expect(machine.state == .emailOff)
    }

    @Test("a revocation older than a deletion but arriving after it leaves the account deleted")
    func revocationAfterInAppDeletion() {
        let (machine, outcomes) = run([
            input(.linked, at: 10), input(.inAppDeletion, at: 100), input(.consentRevoked, at: 50),
            input(.consentRevoked, at: 150),
        ])
        #expect(outcomes[2].disposition == .ignored(.accountDeleted))
        #expect(outcomes[3].disposition == .ignored(.accountDeleted))
        #expect(outcomes[2].effects.isEmpty && outcomes[3].effects.isEmpty)
        #expect(machine.state == .deleted)
        #expect(machine.record?.deletedBy == .inAppDeletion)
        #expect(machine.record?.deletedAt == Instant(secondsSinceEpoch: 100))
    }

    @Test("a deletion older than everything applied still deletes: deletion is dominant")
    func olderDeletionDominates() {
        let (machine, outcomes) = run([
            input(.linked, at: 100), input(.emailDisabled, at: 200), input(.accountDeleted, at: 50),
        ])
        #expect(outcomes[2].disposition == .applied)
        #expect(
            outcomes[2].effects == [.terminateSessions, .dropAppleTokens, .schedulePolicy(trigger: .accountDeleted)])
        #expect(machine.state == .deleted)
        #expect(machine.record?.deletedAt == Instant(secondsSinceEpoch: 50), "deadlines start at the event time")
        #expect(machine.record?.lastAppliedEventTime == Instant(secondsSinceEpoch: 200))
    }

    @Test("every input after deletion is ignored; the same deletion again is a duplicate")
    func afterDeletion() {
        let (machine, outcomes) = run([
            input(.accountDeleted, at: 100, id: "a"), input(.linked, at: 300), input(.emailEnabled, at: 300),
            input(.accountDeleted, at: 100, id: "b"), input(.inAppDeletion, at: 400),
        ])
        #expect(
            outcomes.map(\.disposition) == [
                .applied, .ignored(.accountDeleted), .ignored(.accountDeleted), .duplicate,
                .ignored(.accountDeleted),
            ])
        #expect(outcomes.dropFirst().allSatisfy { $0.effects.isEmpty && $0.record == outcomes[0].record })
        #expect(machine.state == .deleted)
    }

    @Test("equal event times break ties protectively: disabled beats enabled, revocation beats sign-in")
    func tieBreaking() {
        for order in [[AccountInputKind.emailEnabled, .emailDisabled], [.emailDisabled, .emailEnabled]] {
            let (machine, _) = run(order.map { input($0, at: 100) })
            #expect(machine.state == .emailOff, "\(order)")
        }
        for order in [[AccountInputKind.linked, .consentRevoked], [.consentRevoked, .linked]] {
            let (machine, _) = run(order.map { input($0, at: 100) })
            #expect(machine.state == .consentRevoked, "\(order)")
        }
    }

    @Test("a record saved field by field and reloaded behaves like the original")
    func reloadFromStoredFields() throws {
        let (machine, _) = run([input(.linked, at: 50), input(.emailDisabled, at: 60), input(.consentRevoked, at: 100)])
        let saved = try #require(machine.record)
        let reloaded = AccountRecord(
            state: AccountState(canonicalName: saved.state.canonicalName)!,
            lastAppliedEventTime: Instant(millisecondsSinceEpoch: saved.lastAppliedEventTime.millisecondsSinceEpoch),
            emailForwarding: saved.emailForwarding, emailForwardingEventTime: saved.emailForwardingEventTime,
            emailForwardingInput: saved.emailForwardingInput.flatMap { AccountInputKind(canonicalName: $0.rawValue) },
            accessEventTime: saved.accessEventTime,
            accessInput: saved.accessInput.flatMap { AccountInputKind(canonicalName: $0.rawValue) },
            createdAt: saved.createdAt, updatedAt: saved.updatedAt, deletedAt: saved.deletedAt,
            deletedBy: saved.deletedBy)
        #expect(reloaded == saved)
        var resumed = AccountStateMachine(record: reloaded)
        #expect(resumed.apply(input(.linked, at: 90)).disposition == .stale)
        let relinked = resumed.apply(input(.linked, at: 300))
        #expect(relinked.state == .emailOff)
        #expect(relinked.effects == [.cancelRelinkCancellableJobs])
        #expect(relinked.record.createdAt == Instant(secondsSinceEpoch: 51))
        #expect(relinked.record.updatedAt == Instant(secondsSinceEpoch: 301))
    }

    @Test("Apple notifications become inputs; an unknown event type does not")
    func fromNotification() {
        func notification(_ type: String) -> VerifiedNotification {
            VerifiedNotification(
                jti: "jti-9", audience: "com.example.app", issuer: "https://appleid.apple.com",
                issuedAt: Instant(secondsSinceEpoch: 1000), expiresAt: nil, keyID: "k",
                event: AppleEvent(
                    type: AppleEventType(wireValue: type), subject: "000001.abc",
                    eventTime: Instant(millisecondsSinceEpoch: 999_500)))
        }
        let received = Instant(secondsSinceEpoch: 1001)
        #expect(
            AccountInput(notification: notification("account-delete"), receivedAt: received)?.kind == .accountDeleted)
        #expect(
            AccountInput(notification: notification("account-deleted"), receivedAt: received)?.kind == .accountDeleted)
        let revoked = AccountInput(notification: notification("consent-revoked"), receivedAt: received)
        #expect(revoked?.identity == "jti-9")
        #expect(revoked?.eventTime == Instant(millisecondsSinceEpoch: 999_500))
        #expect(AccountInput(notification: notification("account-paused"), receivedAt: received) == nil)
    }
}

@Suite("Account values round-trip through their stored names")
struct AccountStoredNameTests {
    @Test("dispositions, states, kinds, triggers and categories decode from what they encode")
    func roundTrip() {
        for disposition in [AccountDisposition.applied, .stale, .duplicate, .ignored(.accountDeleted)] {
            #expect(
                AccountDisposition(canonicalName: disposition.canonicalName, reason: disposition.reason) == disposition)
        }
        #expect(AccountDisposition(canonicalName: "ignored", reason: nil) == nil)
        #expect(AccountDisposition(canonicalName: "applyed") == nil)
        #expect(AccountDisposition.ignored(.accountDeleted).reason == "account deleted")
        for state in AccountState.allCases { #expect(AccountState(canonicalName: state.canonicalName) == state) }
        for kind in AccountInputKind.allCases { #expect(AccountInputKind(canonicalName: kind.canonicalName) == kind) }
        for trigger in PolicyTrigger.allCases {
            #expect(PolicyTrigger(canonicalName: trigger.canonicalName) == trigger)
        }
        for category in DataCategory.allCases {
            #expect(DataCategory(canonicalName: category.canonicalName) == category)
        }
        #expect(AccountState.allCases.map(\.canonicalName) == ["linked", "email-off", "consent-revoked", "deleted"])
        let effects: [AccountEffect] = [
            .terminateSessions, .dropAppleTokens, .revokeAppleTokens, .emailForwardingChanged(enabled: true),
            .schedulePolicy(trigger: .accountDeleted), .cancelRelinkCancellableJobs,
        ]
        #expect(Set(effects.map(\.canonicalName)).count == effects.count, "effect names are distinct")
    }
}
