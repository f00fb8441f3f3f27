import LifecycleCore

/// A data key about to be stored for one subject and scope: 32 random bytes, wrapped (AES-256-GCM) by the
/// master key `masterKeyID`. The store keeps only the wrapped form; it never sees a key in the clear.
public struct NewSubjectKey: Sendable, Hashable {
    public var app: String
    public var subject: String
    public var scope: SubjectKeyScope
    public var wrappedKey: [UInt8]
    public var masterKeyID: String
    public var createdAt: Instant

    public init(
        app: String, subject: String, scope: SubjectKeyScope, wrappedKey: [UInt8], masterKeyID: String,
        createdAt: Instant
    ) {
        self.app = app
        self.subject = subject
        self.scope = scope
        self.wrappedKey = wrappedKey
        self.masterKeyID = masterKeyID
        self.createdAt = createdAt
    }
}

/// A stored data key. Once destroyed (erasure), `wrappedKey` is nil and the row stays as a tombstone: when,
/// and which master key was in force, which is what bounds the copies in backups.
public struct StoredSubjectKey: Sendable, Hashable {
    public var app: String
    public var subject: String
    public var scope: SubjectKeyScope
    public var wrappedKey: [UInt8]?
    public var masterKeyID: String
    public var createdAt: Instant
    public var destroyedAt: Instant?

    public init(
        app: String, subject: String, scope: SubjectKeyScope, wrappedKey: [UInt8]?, masterKeyID: String,
        createdAt: Instant, destroyedAt: Instant?
    ) {
        self.app = app
        self.subject = subject
        self.scope = scope
        self.wrappedKey = wrappedKey
        self.masterKeyID = masterKeyID
        self.createdAt = createdAt
        self.destroyedAt = destroyedAt
    }

    public var isDestroyed: Bool { wrappedKey == nil }
}

/// What ``StoreWriter/insertSubjectKey(_:)`` did.
public enum SubjectKeyInsertion: Sendable, Hashable {
    /// The new key is stored.
    case inserted
    /// A key already exists for the subject and scope (live, or destroyed); nothing was stored.
    case existing(StoredSubjectKey)
    /// None exists, but the new key is wrapped by a master key that is not the one in force (a rotation
    /// switched it); nothing was stored. Carries the id in force, nil when none is registered.
    case refused(currentMasterKeyID: String?)
}

/// Where a master key stands. Only ids and dates are stored: the keys themselves live in the key file or
/// the environment, never in the database they protect.
public enum MasterKeyState: String, Sendable, Hashable, CaseIterable {
    /// Wraps every new data key.
    case current
    /// Being replaced: some data keys may still be wrapped by it until the rotation re-wraps them.
    case retiring
    /// No live data key is wrapped by it; the key itself is destroyed.
    case retired
}

public struct StoredMasterKey: Sendable, Hashable {
    public var id: String
    public var state: MasterKeyState
    public var addedAt: Instant
    public var retiredAt: Instant?

    public init(id: String, state: MasterKeyState, addedAt: Instant, retiredAt: Instant?) {
        self.id = id
        self.state = state
        self.addedAt = addedAt
        self.retiredAt = retiredAt
    }
}

/// A sealed personal value as stored, with what its associated data binds it to.
public struct StoredSealedValue: Sendable, Hashable {
    public var column: SealedColumn
    public var app: String
    public var subject: String
    /// The row the value belongs to: the notification's `jti`, or empty for the account's own columns.
    public var rowKey: String
    /// The notification id, for display; nil for account columns.
    public var notificationID: Int64?
    public var sealed: [UInt8]

    public init(
        column: SealedColumn, app: String, subject: String, rowKey: String, notificationID: Int64?, sealed: [UInt8]
    ) {
        self.column = column
        self.app = app
        self.subject = subject
        self.rowKey = rowKey
        self.notificationID = notificationID
        self.sealed = sealed
    }
}

/// An inbox row written by a release that kept the e-mail and the raw JWS in the clear, waiting to be sealed.
public struct PlaintextNotificationValues: Sendable, Hashable {
    public var id: Int64
    public var app: String
    public var subject: String
    public var jti: String
    public var email: String?
    public var rawJWS: String?

    public init(id: Int64, app: String, subject: String, jti: String, email: String?, rawJWS: String?) {
        self.id = id
        self.app = app
        self.subject = subject
        self.jti = jti
        self.email = email
        self.rawJWS = rawJWS
    }
}

/// What ``StoreWriter/eraseSubjectValues(app:subject:scopes:at:)`` removed.
public struct SubjectValueErasure: Sendable, Hashable {
    /// Data keys destroyed now (a key destroyed earlier is not counted again).
    public var keysDestroyed: Int
    /// Rows whose sealed values (or, from an older release, plaintext values) were cleared.
    public var rowsCleared: Int

    public init(keysDestroyed: Int, rowsCleared: Int) {
        self.keysDestroyed = keysDestroyed
        self.rowsCleared = rowsCleared
    }
}

/// Which master keys a running instance holds, as it last said (start, reload, heartbeat): a rotation switches
/// to a new key only once every live instance holds it.
public struct InstanceMasterKeys: Sendable, Hashable {
    public var instance: String
    public var masterKeyIDs: [String]
    public var seenAt: Instant

    public init(instance: String, masterKeyIDs: [String], seenAt: Instant) {
        self.instance = instance
        self.masterKeyIDs = masterKeyIDs
        self.seenAt = seenAt
    }
}

/// What ``Store/removeRemnants()`` did to leave no pre-erasure bytes in the store's own files.
public struct RemnantRemoval: Sendable, Hashable {
    /// Whether every step completed (false: a reader kept the log busy; it is tried again later).
    public var complete: Bool
    /// What was done, in words for the step's evidence: `wal_checkpoint(TRUNCATE)`, `VACUUM subject_keys`.
    public var description: String

    public init(complete: Bool, description: String) {
        self.complete = complete
        self.description = description
    }
}
