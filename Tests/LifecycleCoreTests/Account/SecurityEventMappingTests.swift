import Testing

@testable import LifecycleCore

/// The mapping of Shared Signals event types into the account state machine, as the README's table states it.
@Suite("Security event types map into the account machine")
struct SecurityEventMappingTests {
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let oauth = "https://schemas.openid.net/secevent/oauth/event-type/"

    @Test(
        "each event type has the effect the README lists",
        arguments: [
            (risc + "account-purged", SecurityEventEffect.input(.accountDeleted)),
            (risc + "account-disabled", .input(.accessSuspended)),
            (risc + "account-enabled", .input(.linked)),
            (risc + "account-credential-change-required", .input(.sessionsRevoked)),
            (risc + "sessions-revoked", .input(.sessionsRevoked)),
            (caep + "session-revoked", .input(.sessionsRevoked)),
            (caep + "credential-change", .input(.sessionsRevoked)),
            (oauth + "token-revoked", .input(.credentialsInvalid)),
            (oauth + "tokens-revoked", .input(.credentialsInvalid)),
            ("https://schemas.openid.net/secevent/ssf/event-type/verification", .verification),
            (risc + "verification", .verification),
            (risc + "identifier-changed", .recorded),
            (risc + "identifier-recycled", .recorded),
            ("https://example.com/event-type/other", .recorded),
        ] as [(String, SecurityEventEffect)])
    func mapping(uri: String, effect: SecurityEventEffect) {
        let type = SecurityEventType(uri: uri)
        #expect(type.effect == effect)
        #expect(type.uri == uri || type == .verification)
    }

    @Test("an unknown type keeps its URI and shares one metric label")
    func unknown() {
        let type = SecurityEventType(uri: "https://example.com/x")
        #expect(!type.isKnown)
        #expect(type.uri == "https://example.com/x")
        #expect(type.shortName == "unknown")
        #expect(SecurityEventType(uri: Self.risc + "account-purged").shortName == "account-purged")
    }

    @Test("account-purged schedules the account-deleted erasure rules, as an Apple deletion does")
    func purgeErases() {
        var machine = AccountStateMachine()
        let outcome = machine.apply(input(.accountDeleted, at: 10))
        #expect(outcome.effects.contains(.schedulePolicy(trigger: .accountDeleted)))
    }

    @Test("a suspension ends sessions and an account-enabled (linked) re-links, cancelling re-link-cancellable jobs")
    func suspendAndEnable() {
        var machine = AccountStateMachine()
        _ = machine.apply(input(.linked, at: 5))
        let suspended = machine.apply(input(.accessSuspended, at: 10))
        #expect(suspended.state == .consentRevoked)
        #expect(suspended.effects == [.terminateSessions])
        let enabled = machine.apply(input(.linked, at: 20))
        #expect(enabled.state == .linked)
        #expect(enabled.effects == [.cancelRelinkCancellableJobs])
    }

    @Test("sessions-revoked older than a sign-in is stale; newer it ends sessions and keeps the state")
    func sessionsRevoked() {
        var machine = AccountStateMachine()
        _ = machine.apply(input(.linked, at: 20))
        #expect(machine.apply(input(.sessionsRevoked, at: 10)).disposition == .stale)
        let newer = machine.apply(input(.sessionsRevoked, at: 30))
        #expect(newer.disposition == .applied)
        #expect(newer.effects == [.terminateSessions])
        #expect(newer.state == .linked)
    }
}
