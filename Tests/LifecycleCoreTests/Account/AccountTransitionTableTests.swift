import Testing

@testable import LifecycleCore

/// Where a row of the table starts: the inputs that lead there, all before t = 200.
enum StartingPoint: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case noRecord = "no record"
    case linked
    case emailOff = "email-off"
    case consentRevoked = "consent-revoked"
    case deleted

    var setup: [AccountInput] {
        switch self {
        case .noRecord: []
        case .linked: [input(.emailEnabled, at: 40), input(.linked, at: 100)]
        case .emailOff: [input(.linked, at: 50), input(.emailDisabled, at: 100)]
        case .consentRevoked: [input(.emailEnabled, at: 40), input(.linked, at: 50), input(.consentRevoked, at: 100)]
        case .deleted: [input(.linked, at: 50), input(.accountDeleted, at: 100)]
        }
    }

    var expectedState: AccountState? {
        switch self {
        case .noRecord: nil
        case .linked: .linked
        case .emailOff: .emailOff
        case .consentRevoked: .consentRevoked
        case .deleted: .deleted
        }
    }

    var testDescription: String { rawValue }
}

struct TransitionRow: Sendable, CustomTestStringConvertible {
    var from: StartingPoint
    var kind: AccountInputKind
    var state: AccountState
    var disposition: AccountDisposition
    var effects: [AccountEffect]

    var testDescription: String { "\(from.rawValue) + \(kind.rawValue) -> \(state.rawValue)" }
}

private let revoke: [AccountEffect] = [
    .terminateSessions, .dropAppleTokens, .schedulePolicy(trigger: .consentRevoked),
]
/// `credentials-invalid`: sessions end, the dead token is dropped, and nothing is scheduled (not assumed deleted).
private let credentialsEnd: [AccountEffect] = [.terminateSessions, .dropAppleTokens]
private let appleDeletion: [AccountEffect] = [
    .terminateSessions, .dropAppleTokens, .schedulePolicy(trigger: .accountDeleted),
]
private let inAppDeletion: [AccountEffect] = [
    .terminateSessions, .revokeAppleTokens, .schedulePolicy(trigger: .inAppDeletion),
]

private func row(
    _ from: StartingPoint, _ kind: AccountInputKind, _ state: AccountState,
    _ disposition: AccountDisposition = .applied, _ effects: [AccountEffect] = []
) -> TransitionRow {
    TransitionRow(from: from, kind: kind, state: state, disposition: disposition, effects: effects)
}

/// Every (state, input) pair, the input newer (t = 200) than everything before it.
let transitionTable: [TransitionRow] = [
    row(.noRecord, .emailDisabled, .emailOff, .applied, [.emailForwardingChanged(enabled: false)]),
    row(.noRecord, .emailEnabled, .linked, .applied, [.emailForwardingChanged(enabled: true)]),
    row(.noRecord, .consentRevoked, .consentRevoked, .applied, revoke),
    row(.noRecord, .accountDeleted, .deleted, .applied, appleDeletion),
    row(.noRecord, .linked, .linked),
    row(.noRecord, .inAppDeletion, .deleted, .applied, inAppDeletion),
    row(.noRecord, .credentialsInvalid, .consentRevoked, .applied, credentialsEnd),
    row(.noRecord, .accessSuspended, .consentRevoked, .applied, [.terminateSessions]),
    row(.noRecord, .sessionsRevoked, .linked, .applied, [.terminateSessions]),

    row(.linked, .emailDisabled, .emailOff, .applied, [.emailForwardingChanged(enabled: false)]),
    row(.linked, .emailEnabled, .linked),
    row(.linked, .consentRevoked, .consentRevoked, .applied, revoke),
    row(.linked, .accountDeleted, .deleted, .applied, appleDeletion),
    row(.linked, .linked, .linked),
    row(.linked, .inAppDeletion, .deleted, .applied, inAppDeletion),
    row(.linked, .credentialsInvalid, .consentRevoked, .applied, credentialsEnd),
    row(.linked, .accessSuspended, .consentRevoked, .applied, [.terminateSessions]),
    row(.linked, .sessionsRevoked, .linked, .applied, [.terminateSessions]),

    row(.emailOff, .emailDisabled, .emailOff),
    row(.emailOff, .emailEnabled, .linked, .applied, [.emailForwardingChanged(enabled: true)]),
    row(.emailOff, .consentRevoked, .consentRevoked, .applied, revoke),
    row(.emailOff, .accountDeleted, .deleted, .applied, appleDeletion),
    row(.emailOff, .linked, .emailOff),
    row(.emailOff, .inAppDeletion, .deleted, .applied, inAppDeletion),
    row(.emailOff, .credentialsInvalid, .consentRevoked, .applied, credentialsEnd),
    row(.emailOff, .accessSuspended, .consentRevoked, .applied, [.terminateSessions]),
    row(.emailOff, .sessionsRevoked, .emailOff, .applied, [.terminateSessions]),

    row(.consentRevoked, .emailDisabled, .consentRevoked, .applied, [.emailForwardingChanged(enabled: false)]),
    row(.consentRevoked, .emailEnabled, .consentRevoked),
    row(.consentRevoked, .consentRevoked, .consentRevoked),
    row(.consentRevoked, .accountDeleted, .deleted, .applied, appleDeletion),
    row(.consentRevoked, .linked, .linked, .applied, [.cancelRelinkCancellableJobs]),
    row(.consentRevoked, .inAppDeletion, .deleted, .applied, inAppDeletion),
    row(.consentRevoked, .credentialsInvalid, .consentRevoked),
    row(.consentRevoked, .accessSuspended, .consentRevoked),
    row(.consentRevoked, .sessionsRevoked, .consentRevoked),

    row(.deleted, .emailDisabled, .deleted, .ignored(.accountDeleted)),
    row(.deleted, .emailEnabled, .deleted, .ignored(.accountDeleted)),
    row(.deleted, .consentRevoked, .deleted, .ignored(.accountDeleted)),
    row(.deleted, .accountDeleted, .deleted, .ignored(.accountDeleted)),
    row(.deleted, .linked, .deleted, .ignored(.accountDeleted)),
    row(.deleted, .inAppDeletion, .deleted, .ignored(.accountDeleted)),
    row(.deleted, .credentialsInvalid, .deleted, .ignored(.accountDeleted)),
    row(.deleted, .accessSuspended, .deleted, .ignored(.accountDeleted)),
    row(.deleted, .sessionsRevoked, .deleted, .ignored(.accountDeleted)),
]

@Suite("Account transitions, every state and input")
struct AccountTransitionTableTests {
    @Test("the table covers every starting point with every input exactly once")
    func tableIsComplete() {
        for from in StartingPoint.allCases {
            for kind in AccountInputKind.allCases {
                #expect(transitionTable.filter { $0.from == from && $0.kind == kind }.count == 1, "\(from) \(kind)")
            }
        }
    }

    @Test("a newer input moves the account as the table says", arguments: transitionTable)
    func newerInput(row: TransitionRow) {
        let (before, _) = run(row.from.setup)
        #expect(before.state == row.from.expectedState)
        var machine = before
        let outcome = machine.apply(input(row.kind, at: 200))
        #expect(outcome.state == row.state)
        #expect(outcome.disposition == row.disposition)
        #expect(outcome.effects == row.effects)
        #expect(machine.record == outcome.record)
        #expect(outcome.history.fromState == row.from.expectedState)
        #expect(outcome.history.toState == row.state)
        #expect(outcome.history.effects == row.effects)
        #expect(outcome.history.disposition == row.disposition)
        if row.disposition != .applied {
            #expect(outcome.record == before.record, "a non-applied input changes nothing")
        }
    }
}
