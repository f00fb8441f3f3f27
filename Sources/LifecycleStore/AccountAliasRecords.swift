import LifecycleCore

/// Why an identifier names the account it does (``StoreWriter/recordAccountAlias(_:)``).
public enum AccountAliasKind: String, Sendable, Hashable, CaseIterable {
    /// RISC `identifier-changed` (RISC 1.0 §2.5): the account now also goes by the new identifier; the old one
    /// still names it.
    case changed
    /// RISC `identifier-recycled` (RISC 1.0 §2.6): the identifier now names another person, whose account is
    /// a new holder's (``ProviderSubject/generation``), never the old holder's.
    case recycled
}

/// One row of `account_aliases`: from now on, security events naming the identifier `alias` apply to the
/// account `subject`. Rows are never changed: the latest row of an alias is the one in force, and the rows
/// are the record of every change.
public struct NewAccountAlias: Sendable, Hashable {
    public var app: String
    /// The account key of the identifier as the transmitter names it (``ProviderSubject/accountKey``).
    public var alias: String
    /// The account it names.
    public var subject: String
    public var kind: AccountAliasKind
    /// The inbox row of the SET that said so.
    public var notificationID: Int64
    public var recordedAt: Instant

    public init(
        app: String, alias: String, subject: String, kind: AccountAliasKind, notificationID: Int64,
        recordedAt: Instant
    ) {
        self.app = app
        self.alias = alias
        self.subject = subject
        self.kind = kind
        self.notificationID = notificationID
        self.recordedAt = recordedAt
    }
}

/// A stored `account_aliases` row.
public struct StoredAccountAlias: Sendable, Hashable {
    public var id: Int64
    public var alias: NewAccountAlias

    public init(id: Int64, alias: NewAccountAlias) {
        self.id = id
        self.alias = alias
    }
}
