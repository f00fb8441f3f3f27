import LifecycleCore
import LifecycleCrypto
import LifecycleStore
import Synchronization

/// Seals and opens the personal values the service keeps, under one data key per subject and
/// ``SubjectKeyScope`` (crypto-shredding: erasing a scope destroys its key, and with it every copy of what it
/// sealed, in the database, its log, its free space, replicas and backups).
///
/// - A data key is 32 random bytes from OpenSSL's DRBG, stored only wrapped: AES-256-GCM under a master key
///   of the ``MasterKeyring``, the associated data binding it to (app, sub, scope, master key id).
/// - A value is sealed with AES-256-GCM under its data key, the associated data binding it to its
///   ``SealedColumn``, app, sub and row (a notification's `jti`), so a sealed value copied into another row
///   or column does not open there.
/// - Wrapped keys and sealed values start with a format byte (1), so a later format can sit beside this one.
///
/// Data keys exist in the clear only in this process's memory, for the duration of one write or read.
public final class SubjectKeyVault: Sendable {
    public let keyring: MasterKeyring
    /// The master key in force, as last learnt from the store: new data keys are wrapped by it, and the store
    /// refuses a key wrapped by another (a rotation happened), which makes this vault look again.
    private let current = Mutex<String?>(nil)

    static let format: UInt8 = 1

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public init(keyring: MasterKeyring) {
        self.keyring = keyring
    }

    /// The id of the master key in force, once ``attach(to:at:)`` learnt it.
    public var currentMasterKeyID: String? { current.withLock { $0 } }

    // MARK: Associated data

    static func wrappingContext(app: String, subject: String, scope: SubjectKeyScope, masterKeyID: String) -> [UInt8] {
        Array("accountlifecycle:data-key:v1".utf8) + [0] + Array(app.utf8) + [0] + Array(subject.utf8) + [0]
            + Array(scope.canonicalName.utf8) + [0] + Array(masterKeyID.utf8)
    }

    static func valueContext(column: SealedColumn, app: String, subject: String, rowKey: String) -> [UInt8] {
        Array("accountlifecycle:sealed-value:v1".utf8) + [0] + Array(column.qualifiedName.utf8) + [0]
            + Array(app.utf8) + [0] + Array(subject.utf8) + [0] + Array(rowKey.utf8)
    }

    // MARK: Keys

    /// A data key ready to be stored for a subject: the key and its wrapped form under the key in force.
    public struct Candidate: Sendable {
        public var stored: NewSubjectKey
        public var dataKey: [UInt8]
    }

    /// A fresh data key wrapped by the master key in force. Made before the write transaction, so the
    /// randomness and the wrapping cost nothing inside it.
    public func candidate(app: String, subject: String, scope: SubjectKeyScope, at instant: Instant) throws -> Candidate
    {
        guard let masterKeyID = currentMasterKeyID else {
            throw Failure(description: "no master key in force is known; the store was not opened with one")
        }
        let dataKey = SecureRandom.bytes(count: AESGCM.keyByteCount)
        return Candidate(
            stored: NewSubjectKey(
                app: app, subject: subject, scope: scope,
                wrappedKey: try wrap(dataKey, app: app, subject: subject, scope: scope, masterKeyID: masterKeyID),
                masterKeyID: masterKeyID, createdAt: instant),
            dataKey: dataKey)
    }

    func wrap(
        _ dataKey: [UInt8], app: String, subject: String, scope: SubjectKeyScope, masterKeyID: String
    ) throws -> [UInt8] {
        guard let master = keyring.key(id: masterKeyID) else { throw missing(masterKeyID) }
        return [Self.format]
            + (try AESGCM.seal(
                dataKey, key: master,
                associatedData: Self.wrappingContext(
                    app: app, subject: subject, scope: scope, masterKeyID: masterKeyID)))
    }

    /// The data key of a stored, live key. A master key id this process does not hold makes it read the key
    /// file again once (a rotation elsewhere may have added it).
    public func unwrap(_ stored: StoredSubjectKey) throws -> [UInt8] {
        guard let wrapped = stored.wrappedKey else {
            throw Failure(description: "the data key was destroyed by erasure")
        }
        var master = keyring.key(id: stored.masterKeyID)
        if master == nil, keyring.fileChanged {
            try keyring.reload()
            master = keyring.key(id: stored.masterKeyID)
        }
        guard let master else { throw missing(stored.masterKeyID) }
        guard wrapped.first == Self.format else { throw Failure(description: "unknown wrapped key format") }
        do {
            return try AESGCM.open(
                Array(wrapped.dropFirst()), key: master,
                associatedData: Self.wrappingContext(
                    app: stored.app, subject: stored.subject, scope: stored.scope, masterKeyID: stored.masterKeyID))
        } catch {
            throw Failure(description: "a data key wrapped by master key \(stored.masterKeyID) did not open: \(error)")
        }
    }

    private func missing(_ id: String) -> Failure {
        Failure(
            description:
                "master key \(id) is not held: add it to \(keyring.source) (one key per line), or it was retired and what it wrapped is gone"
        )
    }

    /// Inside a write transaction: the data key that seals a subject's new values in the candidate's scope —
    /// the stored one, or the candidate, stored now. Nil when the values must not be kept: the scope was
    /// erased and the account is deleted, so what it receives from now on stays erased. For an account that
    /// is not deleted (Apple tokens erased after a revocation, then a re-link) a destroyed key is replaced.
    public func sealingKey(for candidate: Candidate, in writer: any StoreWriter) throws -> [UInt8]? {
        try sealingKey(for: candidate, in: writer, retried: false)
    }

    private func sealingKey(for candidate: Candidate, in writer: any StoreWriter, retried: Bool) throws -> [UInt8]? {
        let stored = candidate.stored
        switch try writer.insertSubjectKey(stored) {
        case .inserted:
            return candidate.dataKey
        case .existing(let existing) where !existing.isDestroyed:
            return try unwrap(existing)
        case .existing:
            if try writer.account(app: stored.app, subject: stored.subject)?.state == .deleted { return nil }
            if try writer.replaceDestroyedSubjectKey(stored) { return candidate.dataKey }
            let currentID = try writer.masterKeys().first { $0.state == .current }?.id
            return try retry(candidate, currentID: currentID, in: writer, retried: retried)
        case .refused(let currentID):
            return try retry(candidate, currentID: currentID, in: writer, retried: retried)
        }
    }

    /// The store has another master key in force than this process thought (a rotation switched it): learn
    /// it, wrap the same data key by it, and try once more.
    private func retry(
        _ candidate: Candidate, currentID: String?, in writer: any StoreWriter, retried: Bool
    ) throws -> [UInt8]? {
        guard !retried, let currentID, currentID != candidate.stored.masterKeyID else {
            throw Failure(
                description: "the store refused a data key wrapped by master key \(candidate.stored.masterKeyID)")
        }
        if keyring.key(id: currentID) == nil { try keyring.reload() }
        current.withLock { $0 = currentID }
        var rewrapped = candidate
        rewrapped.stored.masterKeyID = currentID
        rewrapped.stored.wrappedKey = try wrap(
            candidate.dataKey, app: candidate.stored.app, subject: candidate.stored.subject,
            scope: candidate.stored.scope, masterKeyID: currentID)
        return try sealingKey(for: rewrapped, in: writer, retried: true)
    }

    // MARK: Values

    /// Seals `value` for `column` of the row `rowKey` of (app, sub).
    public func seal(
        _ value: [UInt8], column: SealedColumn, app: String, subject: String, rowKey: String, dataKey: [UInt8]
    ) throws -> [UInt8] {
        [Self.format]
            + (try AESGCM.seal(
                value, key: dataKey,
                associatedData: Self.valueContext(column: column, app: app, subject: subject, rowKey: rowKey)))
    }

    /// Opens a stored sealed value with its data key.
    public func open(_ value: StoredSealedValue, dataKey: [UInt8]) throws -> [UInt8] {
        guard value.sealed.first == Self.format else { throw Failure(description: "unknown sealed value format") }
        return try AESGCM.open(
            Array(value.sealed.dropFirst()), key: dataKey,
            associatedData: Self.valueContext(
                column: value.column, app: value.app, subject: value.subject, rowKey: value.rowKey))
    }

    // MARK: Store

    /// Learns the master key in force from the store, registering the first held key when none is (a new
    /// database, or one from a release without sealing). Refuses a store whose key in force is not held:
    /// nothing could be sealed or opened.
    public func attach(to store: any Store, at instant: Instant) async throws {
        guard let first = keyring.ids.first else { throw Failure(description: "\(keyring.source): no master key") }
        let inForce = try await store.write { writer in try writer.registerMasterKey(id: first, at: instant) }
        if keyring.key(id: inForce.id) == nil { try keyring.reload() }
        guard keyring.key(id: inForce.id) != nil else {
            throw Failure(
                description:
                    "\(keyring.source): does not hold master key \(inForce.id), the one in force in the store; copy the key file of the instance that rotated it, or add the key to \(MasterKeyring.environmentVariable)"
            )
        }
        current.withLock { $0 = inForce.id }
    }

    /// The master keys of the keyring's source as they are now (``MasterKeyring/read()``), checked against
    /// the store without holding them yet: they must include the key in force and any key still retiring
    /// (live data keys are wrapped by it until the rotation has re-wrapped them). A file without one of them
    /// would leave this process unable to seal, or to open some values, so it is refused with one line
    /// naming the key, and the caller keeps the keys it holds.
    public func readMasterKeys(checkingAgainst store: any Store) async throws -> MasterKeyring.Contents {
        let contents = try keyring.read()
        let held = Set(contents.ids)
        let needed = try await store.read { try $0.masterKeys() }.filter { $0.state != .retired }
        if let missing = needed.first(where: { !held.contains($0.id) }) {
            throw Failure(
                description:
                    "\(keyring.source): does not hold master key \(missing.id), \(missing.state == .current ? "the one in force" : "still retiring") in the store; copy the key file of the instance that rotated it (the keys held are kept)"
            )
        }
        return contents
    }

    /// Updates the key in force from the store (after a rotation this process ran, or learnt of).
    package func learnCurrent(_ id: String) { current.withLock { $0 = id } }
}

extension SubjectKeyVault {
    /// Inside a write transaction: seals an Apple refresh token under the subject's `apple-tokens` data key
    /// and keeps it in the token vault (``SealedColumn/appleRefreshToken``), with the client ID it was issued
    /// to. False when there is no account, or when the account is deleted and its tokens were erased (the
    /// token is then not kept).
    public func storeAppleToken(
        _ token: String, clientID: String, source: AppleTokenSource, app: String, subject: String,
        at instant: Instant, in writer: any StoreWriter
    ) throws -> Bool {
        let candidate = try self.candidate(app: app, subject: subject, scope: .appleTokens, at: instant)
        guard try writer.account(app: app, subject: subject) != nil,
            let dataKey = try sealingKey(for: candidate, in: writer)
        else { return false }
        let sealed = try seal(
            Array(token.utf8), column: .appleRefreshToken, app: app, subject: subject, rowKey: "", dataKey: dataKey)
        return try writer.saveAppleToken(
            NewAppleToken(
                app: app, subject: subject, clientID: clientID, sealedRefreshToken: sealed, source: source,
                linkedAt: instant))
    }

    /// The account's Apple refresh token, opened; nil when none is kept or its key was destroyed.
    public func appleToken(app: String, subject: String, in reader: any StoreReader) throws -> String? {
        guard let sealed = try reader.appleToken(app: app, subject: subject)?.sealedRefreshToken,
            let key = try reader.subjectKey(app: app, subject: subject, scope: .appleTokens), !key.isDestroyed
        else { return nil }
        let value = StoredSealedValue(
            column: .appleRefreshToken, app: app, subject: subject, rowKey: "", notificationID: nil, sealed: sealed)
        return String(decoding: try open(value, dataKey: try unwrap(key)), as: UTF8.self)
    }
}
