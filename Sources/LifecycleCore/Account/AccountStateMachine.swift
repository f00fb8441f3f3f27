/// The lifecycle of one account (one app, one Apple `sub`) as a value: feed it inputs, it returns what to
/// save and what to do (DESIGN.md §5). SwiftNIO style: no I/O, no clock, the caller performs the effects.
///
/// Rules:
/// - An unknown `sub` has no record; the first input of any kind creates one.
/// - Deletion (`account-deleted`, `in-app-deletion`) is dominant: it applies whatever its `event_time`
///   (even older than everything applied) and is terminal. Every later input is `ignored` ("account
///   deleted"), except a repeat of the same deletion (kind and `event_time`), which is a `duplicate`.
/// - Every other input is ordered by `event_time` within its aspect (``AccountAspect``): e-mail
///   forwarding (`email-disabled`/`email-enabled`) and access (`linked`/`consent-revoked`/
///   `credentials-invalid`). An input older than the last applied one of its aspect is `stale`, an equal one
///   (same kind and `event_time`) a `duplicate`; both change nothing. Equal `event_time` with different kinds
///   is ordered by ``AccountInputKind/tieBreakRank``.
/// - The visible state is derived: deleted, else consent-revoked when the last access input is a revocation,
///   else email-off when forwarding is off, else linked.
///
/// Why the order is kept per aspect, not across all inputs: e-mail forwarding at Apple and consent are
/// independent facts, and an e-mail event delayed behind a revocation is still the newest word on
/// forwarding. Keeping it means a re-link comes back as `email-off` when Apple said so, and it makes the
/// final state a pure function of the set of inputs: every arrival order yields the state that applying them
/// sorted by `event_time` yields (last-writer-wins per aspect, deletion absorbing). With one order across all
/// inputs that is impossible: an `email-enabled` arriving first would hide an older `consent-revoked`.
///
/// Decisions the design left open:
/// - E-mail events while consent-revoked are `applied`: the state stays consent-revoked, forwarding is
///   remembered, and the app is told (it may still mail the relay address, e.g. receipts).
/// - `linked` while linked or email-off is an `applied` refresh with no effect.
/// - `credentials-invalid` (Apple refused the stored refresh token: `invalid_grant`) ends the sessions and drops
///   the token, and the account reads `consent-revoked` until a sign-in, but no erasure rule is scheduled:
///   Apple answers `invalid_grant` after a password change too, so it proves neither a revoked consent nor a
///   deletion (Apple, "Generate and validate tokens"). The app confirms on the device (`getCredentialState`)
///   and reports what it finds; a `consent-revoked` that follows schedules the consent-revoked rules then.
/// - `access-suspended` (a transmitter disabled the account) ends the sessions and reads `consent-revoked`
///   until a newer `linked`, scheduling nothing; `sessions-revoked` ends the sessions of a signed-in account
///   and leaves its state alone (it is ordered with the access inputs, so one older than a sign-in is stale).
/// - `account-deleted` drops stored Apple tokens (Apple has already invalidated them, DOMAIN.md §2);
///   `in-app-deletion` revokes them at Apple first, as Apple requires of in-app account deletion.
public struct AccountStateMachine: Hashable, Sendable {
    /// The current record; nil while the `sub` is unknown.
    public private(set) var record: AccountRecord?

    /// Resumes from a saved record, or starts an unknown `sub` with nil.
    public init(record: AccountRecord? = nil) {
        self.record = record
    }

    public var state: AccountState? { record?.state }

    /// Applies one input and returns what to persist and enqueue. Never fails: every input is recorded.
    public mutating func apply(_ input: AccountInput) -> AccountOutcome {
        let fromState = record?.state
        var current = record ?? .blank(createdAt: input.receivedAt, eventTime: input.eventTime)
        let (disposition, effects) = Self.transition(&current, on: input)
        record = current
        let history = AccountHistoryEntry(
            identity: input.identity, kind: input.kind, eventTime: input.eventTime, receivedAt: input.receivedAt,
            disposition: disposition, fromState: fromState, toState: current.state, effects: effects)
        return AccountOutcome(record: current, disposition: disposition, effects: effects, history: history)
    }

    private static func transition(
        _ record: inout AccountRecord, on input: AccountInput
    ) -> (AccountDisposition, [AccountEffect]) {
        switch record.state {
        case .deleted:
            if input.kind.aspect == .existence, record.lastApplied(.existence) == input.orderKey {
                return (.duplicate, [])
            }
            return (.ignored(.accountDeleted), [])
        case .linked, .emailOff, .consentRevoked:
            break
        }

        let aspect = input.kind.aspect
        switch aspect {
        case .existence:
            break
        case .emailForwarding, .access:
            if let last = record.lastApplied(aspect) {
                if input.orderKey < last { return (.stale, []) }
                if input.orderKey == last { return (.duplicate, []) }
            }
        }

        let wasRevoked = record.state == .consentRevoked
        var effects: [AccountEffect] = []
        switch input.kind {
        case .accountDeleted:
            record.deletedAt = input.eventTime
            record.deletedBy = input.kind
            effects = [.terminateSessions, .dropAppleTokens, .schedulePolicy(trigger: .accountDeleted)]
        case .inAppDeletion:
            record.deletedAt = input.eventTime
            record.deletedBy = input.kind
            effects = [.terminateSessions, .revokeAppleTokens, .schedulePolicy(trigger: .inAppDeletion)]
        case .emailDisabled, .emailEnabled:
            let enabled = input.kind == .emailEnabled
            if record.emailForwardingEventTime == nil || record.emailForwarding != enabled {
                effects = [.emailForwardingChanged(enabled: enabled)]
            }
            record.emailForwarding = enabled
            record.emailForwardingEventTime = input.eventTime
            record.emailForwardingInput = input.kind
        case .consentRevoked:
            if !wasRevoked {
                effects = [.terminateSessions, .dropAppleTokens, .schedulePolicy(trigger: .consentRevoked)]
            } else if record.accessInput == .credentialsInvalid {
                // Apple's own word after the probe's suspicion: now the consent-revoked rules apply.
                effects = [.schedulePolicy(trigger: .consentRevoked)]
            }
            record.accessEventTime = input.eventTime
            record.accessInput = input.kind
        case .credentialsInvalid:
            if !wasRevoked { effects = [.terminateSessions, .dropAppleTokens] }
            record.accessEventTime = input.eventTime
            record.accessInput = input.kind
        case .accessSuspended:
            if !wasRevoked { effects = [.terminateSessions] }
            record.accessEventTime = input.eventTime
            record.accessInput = input.kind
        case .sessionsRevoked:
            // Ordered against the access inputs (a sign-in after it makes it stale) but not one of them: the
            // account keeps its access state, so a later suspension or revocation still reads as the newest.
            if !wasRevoked { effects = [.terminateSessions] }
        case .linked:
            if wasRevoked { effects = [.cancelRelinkCancellableJobs] }
            record.accessEventTime = input.eventTime
            record.accessInput = input.kind
        }

        record.state = derivedState(record)
        record.lastAppliedEventTime = max(record.lastAppliedEventTime, input.eventTime)
        record.updatedAt = input.receivedAt
        return (.applied, effects)
    }

    /// The visible state from the per-aspect facts.
    private static func derivedState(_ record: AccountRecord) -> AccountState {
        if record.deletedAt != nil { return .deleted }
        switch record.accessInput {
        case .consentRevoked, .credentialsInvalid, .accessSuspended: return .consentRevoked
        case .linked, .emailDisabled, .emailEnabled, .accountDeleted, .inAppDeletion, .sessionsRevoked, nil: break
        }
        return record.emailForwarding ? .linked : .emailOff
    }
}
