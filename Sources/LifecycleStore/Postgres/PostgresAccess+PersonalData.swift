import LifecycleCore
import LifecycleSQL

/// Data keys, master keys and sealed values on PostgreSQL; every query mirrors its ``SQLiteAccess`` twin.
/// Where SQLite serialises writers, several instances write here at once, so two things are decided by the
/// server: one statement stores a new data key or returns the existing one (no extra round trip on the
/// ingest path), and a rotation's switch of master key waits for every transaction that is storing a key
/// under the old one (a shared/exclusive transaction-level advisory lock, ``masterKeyLock``).
extension PostgresAccess {
    /// The advisory lock between storing data keys (shared) and switching the master key (exclusive), per
    /// schema (https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS).
    static let masterKeyLock = "hashtextextended('lifecycle-master-key:' || current_schema(), 0)"

    // MARK: Reading

    func subjectKey(app: String, subject: String, scope: SubjectKeyScope) throws(StoreError) -> StoredSubjectKey? {
        try postgres { () throws -> StoredSubjectKey? in
            guard
                let row = try connection.query(
                    "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = $1 AND sub = $2 AND scope = $3",
                    [app, subject, scope.canonicalName]
                ).first
            else { return nil }
            return try SubjectKeyRow.decode(row)
        }
    }

    func subjectKeys(app: String, subject: String) throws(StoreError) -> [StoredSubjectKey] {
        try postgres { () throws -> [StoredSubjectKey] in
            var keys: [StoredSubjectKey] = []
            for row in try connection.query(
                "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = $1 AND sub = $2 ORDER BY scope",
                [app, subject])
            {
                keys.append(try SubjectKeyRow.decode(row))
            }
            return keys
        }
    }

    func subjectKeys(
        wrappedBy masterKeyID: String, after: StoredSubjectKey?, limit: Int
    ) throws(StoreError) -> [StoredSubjectKey] {
        try postgres { () throws -> [StoredSubjectKey] in
            var keys: [StoredSubjectKey] = []
            for row in try connection.query(
                """
                SELECT \(SubjectKeyRow.columns) FROM subject_keys
                WHERE (app, sub, scope) > ($1, $2, $3) AND master_key_id = $4 AND wrapped_key IS NOT NULL
                ORDER BY app, sub, scope LIMIT $5
                """,
                [
                    after?.app ?? "", after?.subject ?? "", after?.scope.canonicalName ?? "", masterKeyID,
                    max(0, limit),
                ])
            {
                keys.append(try SubjectKeyRow.decode(row))
            }
            return keys
        }
    }

    func liveSubjectKeyCounts() throws(StoreError) -> [String: Int] {
        try postgres { () throws -> [String: Int] in
            var counts: [String: Int] = [:]
            for row in try connection.query(
                "SELECT master_key_id, count(*) FROM subject_keys WHERE wrapped_key IS NOT NULL GROUP BY master_key_id")
            {
                counts[row.text(0)] = row.int(1)
            }
            return counts
        }
    }

    func masterKeys() throws(StoreError) -> [StoredMasterKey] {
        try postgres { () throws -> [StoredMasterKey] in
            var keys: [StoredMasterKey] = []
            for row in try connection.query(
                "SELECT \(SubjectKeyRow.masterKeyColumns) FROM master_keys ORDER BY added_at_ms, id")
            {
                keys.append(try SubjectKeyRow.decodeMasterKey(row))
            }
            return keys
        }
    }

    func sealedValues(app: String, subject: String) throws(StoreError) -> [StoredSealedValue] {
        try postgres { () throws -> [StoredSealedValue] in
            var values: [StoredSealedValue] = []
            for row in try connection.query(
                """
                SELECT id, jti, sealed_email, sealed_raw_jws FROM notifications
                WHERE app = $1 AND sub = $2 AND (sealed_email IS NOT NULL OR sealed_raw_jws IS NOT NULL) ORDER BY id
                """, [app, subject])
            {
                for (column, index) in [(SealedColumn.notificationEmail, 2), (.notificationToken, 3)] {
                    guard let sealed = row.optionalBytes(index) else { continue }
                    values.append(
                        StoredSealedValue(
                            column: column, app: app, subject: subject, rowKey: row.text(1),
                            notificationID: row.int64(0), sealed: sealed))
                }
            }
            if let token = try connection.query(
                "SELECT apple_token FROM accounts WHERE app = $1 AND sub = $2 AND apple_token IS NOT NULL",
                [app, subject]
            ).first?.optionalBytes(0) {
                values.append(
                    StoredSealedValue(
                        column: .appleRefreshToken, app: app, subject: subject, rowKey: "", notificationID: nil,
                        sealed: token))
            }
            return values
        }
    }

    func plaintextNotificationValues(afterID: Int64, limit: Int) throws(StoreError) -> [PlaintextNotificationValues] {
        try postgres {
            try connection.query(
                """
                SELECT id, app, sub, jti, email, raw_jws FROM notifications
                WHERE id > $1 AND (email IS NOT NULL OR raw_jws IS NOT NULL) ORDER BY id LIMIT $2
                """, [afterID, max(0, limit)]
            ).map { row in
                PlaintextNotificationValues(
                    id: row.int64(0), app: row.text(1), subject: row.text(2), jti: row.text(3),
                    email: row.optionalText(4), rawJWS: row.optionalText(5))
            }
        }
    }

    func conversionDone(_ name: String) throws(StoreError) -> Bool {
        try postgres { try !connection.query("SELECT 1 FROM store_conversions WHERE name = $1", [name]).isEmpty }
    }

    func instanceMasterKeys(since: Instant) throws(StoreError) -> [InstanceMasterKeys] {
        try postgres {
            try connection.query(
                """
                SELECT instance, master_key_ids, seen_at_ms FROM instance_master_keys
                WHERE seen_at_ms >= $1 ORDER BY instance
                """, [since.millisecondsSinceEpoch]
            ).map { row in
                InstanceMasterKeys(
                    instance: row.text(0), masterKeyIDs: row.text(1).split(separator: ",").map(String.init),
                    seenAt: row.instant(2))
            }
        }
    }

    func remainingSubjectValues(app: String, subject: String, scopes: Set<SubjectKeyScope>) throws(StoreError) -> Int {
        try postgres { () throws -> Int in
            var remaining = 0
            for scope in scopes.sorted() {
                remaining += Int(
                    try connection.queryInt64(
                        """
                        SELECT count(*) FROM subject_keys
                        WHERE app = $1 AND sub = $2 AND scope = $3 AND wrapped_key IS NOT NULL
                        """, [app, subject, scope.canonicalName]) ?? 0)
                remaining += Int(
                    try connection.queryInt64(SubjectKeyRow.clearing(scope).remaining, [app, subject]) ?? 0)
            }
            return remaining
        }
    }

    // MARK: Writing

    /// One round trip: the insert (guarded by the master key in force and holding the shared side of
    /// ``masterKeyLock``), the existing row and the key in force come back together. A concurrent insert of
    /// the same key that committed after this statement's snapshot leaves all three empty of it; a fresh
    /// look then finds it.
    func insertSubjectKey(_ key: NewSubjectKey) throws(StoreError) -> SubjectKeyInsertion {
        try postgres { () throws -> SubjectKeyInsertion in
            let rows = try connection.query(
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
                """,
                [
                    key.app, key.subject, key.scope.canonicalName, key.wrappedKey, key.masterKeyID,
                    key.createdAt.millisecondsSinceEpoch,
                ])
            if rows.contains(where: { $0.text(0) == "inserted" }) { return .inserted }
            if let existing = rows.first(where: { $0.text(0) == "existing" }) {
                return .existing(try SubjectKeyRow.decode(existing, from: 1))
            }
            let current = rows.first(where: { $0.text(0) == "current" })?.optionalText(5)
            if current == key.masterKeyID,
                let row = try connection.query(
                    "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = $1 AND sub = $2 AND scope = $3",
                    [key.app, key.subject, key.scope.canonicalName]
                ).first
            {
                return .existing(try SubjectKeyRow.decode(row))
            }
            return .refused(currentMasterKeyID: current)
        }
    }

    func replaceDestroyedSubjectKey(_ key: NewSubjectKey) throws(StoreError) -> Bool {
        try postgres {
            _ = try connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.masterKeyLock))")
            return try !connection.query(
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
                ]
            ).isEmpty
        }
    }

    func rewrapSubjectKey(
        app: String, subject: String, scope: SubjectKeyScope, fromMasterKeyID: String, wrappedKey: [UInt8],
        masterKeyID: String
    ) throws(StoreError) -> Bool {
        try postgres {
            try !connection.query(
                """
                UPDATE subject_keys SET wrapped_key = $1::bytea, master_key_id = $2
                WHERE app = $3 AND sub = $4 AND scope = $5 AND master_key_id = $6 AND wrapped_key IS NOT NULL
                RETURNING 1
                """, [wrappedKey, masterKeyID, app, subject, scope.canonicalName, fromMasterKeyID]
            ).isEmpty
        }
    }

    func registerMasterKey(id: String, at instant: Instant) throws(StoreError) -> StoredMasterKey {
        try postgres { () throws -> StoredMasterKey in
            _ = try connection.query(
                """
                INSERT INTO master_keys (id, state, added_at_ms)
                SELECT $1, 'current', $2::bigint WHERE NOT EXISTS (SELECT 1 FROM master_keys WHERE state = 'current')
                ON CONFLICT DO NOTHING
                """, [id, instant.millisecondsSinceEpoch])
            guard
                let row = try connection.query(
                    "SELECT \(SubjectKeyRow.masterKeyColumns) FROM master_keys WHERE state = 'current'"
                ).first
            else { throw PostgresError(sqlState: "23000", message: "no master key is in force after registering one") }
            return try SubjectKeyRow.decodeMasterKey(row)
        }
    }

    func switchMasterKey(to id: String, at instant: Instant) throws(StoreError) -> Bool {
        try postgres { () throws -> Bool in
            _ = try connection.query("SELECT pg_advisory_xact_lock(\(Self.masterKeyLock))")
            if try !connection.query("SELECT 1 FROM master_keys WHERE id = $1 AND state = 'current'", [id]).isEmpty {
                return false
            }
            _ = try connection.query("UPDATE master_keys SET state = 'retiring' WHERE state = 'current'")
            _ = try connection.query(
                """
                INSERT INTO master_keys (id, state, added_at_ms) VALUES ($1, 'current', $2)
                ON CONFLICT (id) DO UPDATE SET state = 'current', retired_at_ms = NULL
                """, [id, instant.millisecondsSinceEpoch])
            return true
        }
    }

    func retireUnusedMasterKeys(at instant: Instant) throws(StoreError) -> [String] {
        try postgres {
            try connection.query(
                """
                UPDATE master_keys SET state = 'retired', retired_at_ms = $1
                WHERE state = 'retiring' AND NOT EXISTS (
                    SELECT 1 FROM subject_keys WHERE master_key_id = master_keys.id AND wrapped_key IS NOT NULL)
                RETURNING id
                """, [instant.millisecondsSinceEpoch]
            ).map { $0.text(0) }.sorted()
        }
    }

    func eraseSubjectValues(
        app: String, subject: String, scopes: Set<SubjectKeyScope>, at instant: Instant
    ) throws(StoreError) -> SubjectValueErasure {
        try postgres { () throws -> SubjectValueErasure in
            var erasure = SubjectValueErasure(keysDestroyed: 0, rowsCleared: 0)
            for scope in scopes.sorted() {
                erasure.keysDestroyed += try connection.query(
                    """
                    UPDATE subject_keys SET wrapped_key = NULL, destroyed_at_ms = $1
                    WHERE app = $2 AND sub = $3 AND scope = $4 AND wrapped_key IS NOT NULL
                    RETURNING 1
                    """, [instant.millisecondsSinceEpoch, app, subject, scope.canonicalName]
                ).count
                erasure.rowsCleared += try connection.query(SubjectKeyRow.clearing(scope).clear, [app, subject]).count
            }
            return erasure
        }
    }

    func completePendingHygiene(description: String, finishedBy: Instant) throws(StoreError) -> Int {
        try postgres {
            try connection.query(
                """
                UPDATE erasure_steps SET hygiene = $1
                WHERE hygiene = $2 AND finished_at_ms <= $3
                RETURNING 1
                """, [description, ErasureStepEvidence.hygienePending, finishedBy.millisecondsSinceEpoch]
            ).count
        }
    }

    func sealPlaintextNotification(id: Int64, sealedEmail: [UInt8]?, sealedRawJWS: [UInt8]?) throws(StoreError) {
        try postgres {
            _ = try connection.query(
                """
                UPDATE notifications SET sealed_email = coalesce($1::bytea, sealed_email),
                    sealed_raw_jws = coalesce($2::bytea, sealed_raw_jws), email = NULL, raw_jws = NULL
                WHERE id = $3
                """, [sealedEmail, sealedRawJWS, id])
        }
    }

    func recordConversion(_ name: String, at instant: Instant) throws(StoreError) {
        try postgres {
            _ = try connection.query(
                "INSERT INTO store_conversions (name, done_at_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [name, instant.millisecondsSinceEpoch])
        }
    }

    func recordInstanceMasterKeys(instance: String, masterKeyIDs: [String]?, at instant: Instant) throws(StoreError) {
        try postgres {
            guard let masterKeyIDs else {
                _ = try connection.query("DELETE FROM instance_master_keys WHERE instance = $1", [instance])
                return
            }
            _ = try connection.query(
                """
                INSERT INTO instance_master_keys (instance, master_key_ids, seen_at_ms) VALUES ($1, $2, $3)
                ON CONFLICT (instance) DO UPDATE SET master_key_ids = excluded.master_key_ids,
                    seen_at_ms = excluded.seen_at_ms
                """, [instance, masterKeyIDs.sorted().joined(separator: ","), instant.millisecondsSinceEpoch])
        }
    }
}
