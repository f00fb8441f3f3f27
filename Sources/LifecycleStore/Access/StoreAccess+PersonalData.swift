import LifecycleCore
import LifecycleSQL

/// Data keys, master keys and sealed values (see ``StoreSchema/sealedPersonalValues(_:)``).
///
/// On SQLite every write runs inside the single writer's transaction, so the checks these statements make (is
/// the master key in force? does a key exist?) cannot race with another writer, in this process or another.
/// On PostgreSQL several instances write at once, so two things are decided by the server: one statement
/// stores a new data key or returns the existing one (no extra round trip on the ingest path), and a
/// rotation's switch of master key waits for every transaction that is storing a key under the old one (a
/// shared/exclusive transaction-level advisory lock, ``holdMasterKeyLock(exclusive:)``).
extension StoreAccess {
    /// The advisory lock between storing data keys (shared) and switching the master key (exclusive), per
    /// schema (https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS). Nothing on
    /// SQLite, whose writer lock already orders every write.
    private func holdMasterKeyLock(exclusive: Bool) throws {
        switch dialect {
        case .sqlite:
            return
        case .postgres:
            let function = exclusive ? "pg_advisory_xact_lock" : "pg_advisory_xact_lock_shared"
            try connection.run("SELECT \(function)(\(Self.masterKeyLock))")
        }
    }

    static var masterKeyLock: String { "hashtextextended('lifecycle-master-key:' || current_schema(), 0)" }

    // MARK: Reading

    func subjectKey(app: String, subject: String, scope: SubjectKeyScope) throws(StoreError) -> StoredSubjectKey? {
        try sql {
            try connection.fetchOne(
                "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = $1 AND sub = $2 AND scope = $3",
                [app, subject, scope.canonicalName]
            ) { row in try SubjectKeyRow.decode(row) }
        }
    }

    func subjectKeys(app: String, subject: String) throws(StoreError) -> [StoredSubjectKey] {
        try sql {
            try connection.fetchAll(
                "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = $1 AND sub = $2 ORDER BY scope",
                [app, subject]
            ) { row in try SubjectKeyRow.decode(row) }
        }
    }

    func subjectKeys(
        wrappedBy masterKeyID: String, after: StoredSubjectKey?, limit: Int
    ) throws(StoreError) -> [StoredSubjectKey] {
        try sql {
            try connection.fetchAll(
                """
                SELECT \(SubjectKeyRow.columns) FROM subject_keys
                WHERE (app, sub, scope) > ($1, $2, $3) AND master_key_id = $4 AND wrapped_key IS NOT NULL
                ORDER BY app, sub, scope LIMIT $5
                """,
                [
                    after?.app ?? "", after?.subject ?? "", after?.scope.canonicalName ?? "", masterKeyID,
                    max(0, limit),
                ]
            ) { row in try SubjectKeyRow.decode(row) }
        }
    }

    func liveSubjectKeyCounts() throws(StoreError) -> [String: Int] {
        try sql { () throws -> [String: Int] in
            var counts: [String: Int] = [:]
            try connection.fetchEach(
                "SELECT master_key_id, count(*) FROM subject_keys WHERE wrapped_key IS NOT NULL GROUP BY master_key_id",
                []
            ) { row in counts[row.text(0)] = row.int(1) }
            return counts
        }
    }

    func masterKeys() throws(StoreError) -> [StoredMasterKey] {
        try sql {
            try connection.fetchAll(
                "SELECT \(SubjectKeyRow.masterKeyColumns) FROM master_keys ORDER BY added_at_ms, id"
            ) { row in try SubjectKeyRow.decodeMasterKey(row) }
        }
    }

    func sealedValues(app: String, subject: String) throws(StoreError) -> [StoredSealedValue] {
        try sql { () throws -> [StoredSealedValue] in
            var values: [StoredSealedValue] = []
            try connection.fetchEach(
                """
                SELECT id, jti, sealed_email, sealed_raw_jws FROM notifications
                WHERE app = $1 AND sub = $2 AND (sealed_email IS NOT NULL OR sealed_raw_jws IS NOT NULL) ORDER BY id
                """, [app, subject]
            ) { row in
                for (column, index) in [(SealedColumn.notificationEmail, 2), (.notificationToken, 3)] {
                    guard let sealed = row.optionalBytes(index) else { continue }
                    values.append(
                        StoredSealedValue(
                            column: column, app: app, subject: subject, rowKey: row.text(1),
                            notificationID: row.int64(0), sealed: sealed))
                }
            }
            if let token = try connection.fetchOne(
                """
                SELECT sealed_refresh_token FROM apple_tokens
                WHERE app = $1 AND sub = $2 AND sealed_refresh_token IS NOT NULL
                """,
                [app, subject], { $0.optionalBytes(0) }) ?? nil
            {
                values.append(
                    StoredSealedValue(
                        column: .appleRefreshToken, app: app, subject: subject, rowKey: "", notificationID: nil,
                        sealed: token))
            }
            return values
        }
    }

    func plaintextNotificationValues(afterID: Int64, limit: Int) throws(StoreError) -> [PlaintextNotificationValues] {
        try sql {
            try connection.fetchAll(
                """
                SELECT id, app, sub, jti, email, raw_jws FROM notifications
                WHERE id > $1 AND (email IS NOT NULL OR raw_jws IS NOT NULL) ORDER BY id LIMIT $2
                """, [afterID, max(0, limit)]
            ) { row in
                PlaintextNotificationValues(
                    id: row.int64(0), app: row.text(1), subject: row.text(2), jti: row.text(3),
                    email: row.optionalText(4), rawJWS: row.optionalText(5))
            }
        }
    }

    func conversionDone(_ name: String) throws(StoreError) -> Bool {
        try sql { try connection.fetchInt64("SELECT 1 FROM store_conversions WHERE name = $1", [name]) != nil }
    }

    func instanceMasterKeys(since: Instant) throws(StoreError) -> [InstanceMasterKeys] {
        try sql {
            try connection.fetchAll(
                """
                SELECT instance, master_key_ids, seen_at_ms FROM instance_master_keys
                WHERE seen_at_ms >= $1 ORDER BY instance
                """, [since.millisecondsSinceEpoch]
            ) { row in
                InstanceMasterKeys(
                    instance: row.text(0), masterKeyIDs: row.text(1).split(separator: ",").map(String.init),
                    seenAt: row.instant(2))
            }
        }
    }

    func remainingSubjectValues(app: String, subject: String, scopes: Set<SubjectKeyScope>) throws(StoreError) -> Int {
        try sql { () throws -> Int in
            var remaining = 0
            for scope in scopes.sorted() {
                remaining += Int(
                    try connection.fetchInt64(
                        """
                        SELECT count(*) FROM subject_keys
                        WHERE app = $1 AND sub = $2 AND scope = $3 AND wrapped_key IS NOT NULL
                        """, [app, subject, scope.canonicalName]) ?? 0)
                remaining += Int(
                    try connection.fetchInt64(SubjectKeyRow.clearing(scope).remaining, [app, subject]) ?? 0)
            }
            return remaining
        }
    }

    // MARK: Writing

    /// On the ingest path (a subject's first notification stores its key), and where the two databases
    /// differ in meaning, not spelling. SQLite inserts first (a subject's first notification is the common
    /// case: Apple sends few per user) and looks for the existing key only when nothing was inserted; the
    /// writer's lock keeps the three statements one step. PostgreSQL does it in one round trip: the insert
    /// (guarded by the master key in force and holding the shared side of the master-key lock), the existing
    /// row and the key in force come back together. A concurrent insert of the same key that committed after
    /// that statement's snapshot leaves all three empty of it; a fresh look then finds it.
    func insertSubjectKey(_ key: NewSubjectKey) throws(StoreError) -> SubjectKeyInsertion {
        let arguments: [any SQLBindable] = [
            key.app, key.subject, key.scope.canonicalName, key.wrappedKey, key.masterKeyID,
            key.createdAt.millisecondsSinceEpoch,
        ]
        switch dialect {
        case .sqlite:
            let inserted = try sql {
                try connection.fetchInt64(
                    """
                    INSERT INTO subject_keys (app, sub, scope, wrapped_key, master_key_id, created_at_ms)
                    SELECT $1, $2, $3, $4, $5, $6
                    WHERE EXISTS (SELECT 1 FROM master_keys WHERE state = 'current' AND id = $5)
                    ON CONFLICT DO NOTHING
                    RETURNING 1
                    """, arguments)
            }
            if inserted != nil { return .inserted }
            let existing = try sql {
                try connection.fetchOne(
                    "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = $1 AND sub = $2 AND scope = $3",
                    [key.app, key.subject, key.scope.canonicalName]
                ) { row in try SubjectKeyRow.decode(row) }
            }
            if let existing { return .existing(existing) }
            return .refused(
                currentMasterKeyID: try sql {
                    try connection.fetchText("SELECT id FROM master_keys WHERE state = 'current'")
                })
        case .postgres:
            return try sql { () throws -> SubjectKeyInsertion in
                var inserted = false
                var existing: StoredSubjectKey?
                var current: String?
                try connection.fetchEach(
                    """
                    WITH guard AS (SELECT pg_advisory_xact_lock_shared(\(Self.masterKeyLock))),
                    inserted AS (
                        INSERT INTO subject_keys (app, sub, scope, wrapped_key, master_key_id, created_at_ms)
                        SELECT $1, $2, $3, $4::bytea, $5, $6::bigint FROM guard, master_keys
                        WHERE master_keys.state = 'current' AND master_keys.id = $5
                        ON CONFLICT DO NOTHING
                        RETURNING 1)
                    SELECT 'inserted', NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM inserted
                    UNION ALL
                    SELECT 'existing', \(SubjectKeyRow.columns) FROM subject_keys
                    WHERE app = $1 AND sub = $2 AND scope = $3
                    UNION ALL
                    SELECT 'current', NULL, NULL, NULL, NULL, id, NULL, NULL FROM master_keys WHERE state = 'current'
                    """, arguments
                ) { row in
                    switch row.text(0) {
                    case "inserted": inserted = true
                    case "existing": existing = try SubjectKeyRow.decode(row, from: 1)
                    case "current": current = row.optionalText(5)
                    default: break
                    }
                }
                if inserted { return .inserted }
                if let existing { return .existing(existing) }
                if current == key.masterKeyID,
                    let row = try connection.fetchOne(
                        "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = $1 AND sub = $2 AND scope = $3",
                        [key.app, key.subject, key.scope.canonicalName], { row in try SubjectKeyRow.decode(row) })
                {
                    return .existing(row)
                }
                return .refused(currentMasterKeyID: current)
            }
        }
    }

    func replaceDestroyedSubjectKey(_ key: NewSubjectKey) throws(StoreError) -> Bool {
        try sql {
            try holdMasterKeyLock(exclusive: false)
            return try connection.fetchCount(
                """
                UPDATE subject_keys SET wrapped_key = $4::bytea, master_key_id = $5, created_at_ms = $6::bigint,
                    destroyed_at_ms = NULL
                WHERE app = $1 AND sub = $2 AND scope = $3 AND wrapped_key IS NULL
                    AND EXISTS (SELECT 1 FROM master_keys WHERE state = 'current' AND id = $5)
                RETURNING 1
                """,
                [
                    key.app, key.subject, key.scope.canonicalName, key.wrappedKey, key.masterKeyID,
                    key.createdAt.millisecondsSinceEpoch,
                ]) > 0
        }
    }

    func rewrapSubjectKey(
        app: String, subject: String, scope: SubjectKeyScope, fromMasterKeyID: String, wrappedKey: [UInt8],
        masterKeyID: String
    ) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchCount(
                """
                UPDATE subject_keys SET wrapped_key = $1::bytea, master_key_id = $2
                WHERE app = $3 AND sub = $4 AND scope = $5 AND master_key_id = $6 AND wrapped_key IS NOT NULL
                RETURNING 1
                """, [wrappedKey, masterKeyID, app, subject, scope.canonicalName, fromMasterKeyID]) > 0
        }
    }

    func registerMasterKey(id: String, at instant: Instant) throws(StoreError) -> StoredMasterKey {
        try sql { () throws -> StoredMasterKey in
            try connection.run(
                """
                INSERT INTO master_keys (id, state, added_at_ms)
                SELECT $1, 'current', $2::bigint WHERE NOT EXISTS (SELECT 1 FROM master_keys WHERE state = 'current')
                ON CONFLICT DO NOTHING
                """, [id, instant.millisecondsSinceEpoch])
            guard
                let current = try connection.fetchOne(
                    "SELECT \(SubjectKeyRow.masterKeyColumns) FROM master_keys WHERE state = 'current'", [],
                    { row in try SubjectKeyRow.decodeMasterKey(row) })
            else { throw Connection.constraintViolation("no master key is in force after registering one") }
            return current
        }
    }

    func switchMasterKey(to id: String, at instant: Instant) throws(StoreError) -> Bool {
        try sql { () throws -> Bool in
            try holdMasterKeyLock(exclusive: true)
            if try connection.fetchInt64("SELECT 1 FROM master_keys WHERE id = $1 AND state = 'current'", [id]) != nil {
                return false
            }
            try connection.run("UPDATE master_keys SET state = 'retiring' WHERE state = 'current'")
            try connection.run(
                """
                INSERT INTO master_keys (id, state, added_at_ms) VALUES ($1, 'current', $2)
                ON CONFLICT (id) DO UPDATE SET state = 'current', retired_at_ms = NULL
                """, [id, instant.millisecondsSinceEpoch])
            return true
        }
    }

    func retireUnusedMasterKeys(at instant: Instant) throws(StoreError) -> [String] {
        try sql {
            try connection.fetchAll(
                """
                UPDATE master_keys SET state = 'retired', retired_at_ms = $1
                WHERE state = 'retiring' AND NOT EXISTS (
                    SELECT 1 FROM subject_keys WHERE master_key_id = master_keys.id AND wrapped_key IS NOT NULL)
                RETURNING id
                """, [instant.millisecondsSinceEpoch]
            ) { $0.text(0) }.sorted()
        }
    }

    func eraseSubjectValues(
        app: String, subject: String, scopes: Set<SubjectKeyScope>, at instant: Instant
    ) throws(StoreError) -> SubjectValueErasure {
        try sql { () throws -> SubjectValueErasure in
            var erasure = SubjectValueErasure(keysDestroyed: 0, rowsCleared: 0)
            for scope in scopes.sorted() {
                erasure.keysDestroyed += try connection.fetchCount(
                    """
                    UPDATE subject_keys SET wrapped_key = NULL, destroyed_at_ms = $1
                    WHERE app = $2 AND sub = $3 AND scope = $4 AND wrapped_key IS NOT NULL
                    RETURNING 1
                    """, [instant.millisecondsSinceEpoch, app, subject, scope.canonicalName])
                erasure.rowsCleared += try connection.fetchCount(SubjectKeyRow.clearing(scope).clear, [app, subject])
            }
            return erasure
        }
    }

    func completePendingHygiene(description: String, finishedBy: Instant) throws(StoreError) -> Int {
        try sql {
            try connection.fetchCount(
                """
                UPDATE erasure_steps SET hygiene = $1
                WHERE hygiene = $2 AND finished_at_ms <= $3
                RETURNING 1
                """, [description, ErasureStepEvidence.hygienePending, finishedBy.millisecondsSinceEpoch])
        }
    }

    func sealPlaintextNotification(id: Int64, sealedEmail: [UInt8]?, sealedRawJWS: [UInt8]?) throws(StoreError) {
        try sql {
            try connection.run(
                """
                UPDATE notifications SET sealed_email = coalesce($1::bytea, sealed_email),
                    sealed_raw_jws = coalesce($2::bytea, sealed_raw_jws), email = NULL, raw_jws = NULL
                WHERE id = $3
                """, [sealedEmail, sealedRawJWS, id])
        }
    }

    func recordConversion(_ name: String, at instant: Instant) throws(StoreError) {
        try sql {
            try connection.run(
                "INSERT INTO store_conversions (name, done_at_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [name, instant.millisecondsSinceEpoch])
        }
    }

    func recordInstanceMasterKeys(instance: String, masterKeyIDs: [String]?, at instant: Instant) throws(StoreError) {
        try sql {
            guard let masterKeyIDs else {
                try connection.run("DELETE FROM instance_master_keys WHERE instance = $1", [instance])
                return
            }
            try connection.run(
                """
                INSERT INTO instance_master_keys (instance, master_key_ids, seen_at_ms) VALUES ($1, $2, $3)
                ON CONFLICT (instance) DO UPDATE SET master_key_ids = excluded.master_key_ids,
                    seen_at_ms = excluded.seen_at_ms
                """, [instance, masterKeyIDs.sorted().joined(separator: ","), instant.millisecondsSinceEpoch])
        }
    }
}
