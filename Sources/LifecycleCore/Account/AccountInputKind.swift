/// What happened to an account: the inputs of the state machine (DESIGN.md §5).
///
/// The four known Apple event types map one to one; an unknown Apple `type` is not an input (it is recorded
/// and counted by the ingest path, DOMAIN.md §2), so ``init(appleEventType:)`` returns nil for it.
public enum AccountInputKind: String, Hashable, Sendable, CaseIterable {
    /// Apple: mail to the private relay address stopped reaching the user.
    case emailDisabled = "email-disabled"
    /// Apple: mail to the private relay address reaches the user again.
    case emailEnabled = "email-enabled"
    /// Apple: the user stopped using Sign in with Apple with the app.
    case consentRevoked = "consent-revoked"
    /// Apple: the Apple Account was permanently deleted (both wire spellings).
    case accountDeleted = "account-deleted"
    /// The app reports a successful Sign in with Apple for this `sub`.
    case linked = "linked"
    /// The user deleted the account inside the app (App Store Review Guideline 5.1.1(v)).
    case inAppDeletion = "in-app-deletion"
    /// The daily probe found the stored Apple refresh token refused by Apple (`invalid_grant`): consent may have
    /// been revoked or the Apple Account deleted with the notification lost (DOMAIN.md §3), or the user only
    /// changed their password. Sessions end as for ``consentRevoked``, but no erasure rule is scheduled: the
    /// account is not assumed deleted until the app confirms (``AccountStateMachine``).
    case credentialsInvalid = "credentials-invalid"
    /// A security event transmitter disabled the account (RISC `account-disabled`, e.g. reason `hijacking`):
    /// access is suspended, sessions end, nothing is erased. A newer `linked` (RISC `account-enabled`, or a
    /// sign-in the app reports) re-links.
    case accessSuspended = "access-suspended"
    /// A transmitter ended the account's sessions or changed its credentials (CAEP `session-revoked`,
    /// `credential-change`; RISC `sessions-revoked`, `account-credential-change-required`): the sessions end,
    /// the account stays as it is. Older than the last access input (a later sign-in) it is stale.
    case sessionsRevoked = "sessions-revoked"

    /// Maps a decoded Apple event type; nil for an unknown type, which is not a state input.
    public init?(appleEventType: AppleEventType) {
        switch appleEventType {
        case .emailDisabled: self = .emailDisabled
        case .emailEnabled: self = .emailEnabled
        case .consentRevoked: self = .consentRevoked
        case .accountDeleted: self = .accountDeleted
        case .unknown: return nil
        }
    }

    /// Decodes a canonical name as the store saved it.
    public init?(canonicalName: String) {
        self.init(rawValue: canonicalName)
    }

    public var canonicalName: String { rawValue }

    /// The part of the account this input speaks about. Inputs about different aspects are independent
    /// facts, so each aspect keeps its own "last applied" event: see ``AccountStateMachine``.
    public var aspect: AccountAspect {
        switch self {
        case .emailDisabled, .emailEnabled: .emailForwarding
        case .linked, .consentRevoked, .credentialsInvalid, .accessSuspended, .sessionsRevoked: .access
        case .accountDeleted, .inAppDeletion: .existence
        }
    }

    /// Breaks ties between inputs of one aspect with the same `event_time` (milliseconds): the higher rank
    /// counts as the later one. The protective reading wins: `email-disabled` over `email-enabled` (stop
    /// mailing), a revocation over a sign-in (keep sessions ended); `consent-revoked` over
    /// `credentials-invalid` so the record names Apple's own notification; a suspension over a mere end of
    /// sessions. Every kind of an aspect has its own rank, so a tie never depends on arrival order.
    public var tieBreakRank: Int {
        switch self {
        case .emailEnabled: 0
        case .emailDisabled: 1
        case .linked: 0
        case .sessionsRevoked: 1
        case .credentialsInvalid: 2
        case .accessSuspended: 3
        case .consentRevoked: 4
        case .inAppDeletion: 0
        case .accountDeleted: 1
        }
    }
}

/// The independent facts an account record keeps, each ordered by its own last applied event.
public enum AccountAspect: String, Hashable, Sendable, CaseIterable {
    /// Relay e-mail forwarding on or off (`email-disabled` / `email-enabled`).
    case emailForwarding = "email-forwarding"
    /// Signed in or revoked (`linked` / `consent-revoked` / `credentials-invalid` / `access-suspended`;
    /// `sessions-revoked` is ordered here but changes no state).
    case access = "access"
    /// Deleted or not (`account-deleted` / `in-app-deletion`): dominant, whatever the order.
    case existence = "existence"
}
