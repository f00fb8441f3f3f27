import LifecycleCore
import LifecycleSQL

/// Data keys, master keys and sealed values on SQLite (see ``SQLiteSchema/sealedPersonalValues``). Every
/// write runs inside the single writer's transaction, so the checks these statements make (is the master key
/// in force? does a key exist?) cannot race with another writer, in this process or another.
extension SQLiteAccess {
    /// The shared statements are written with `$1`, `$2` (PostgreSQL's form); SQLite reads `?1`, `?2`.
    private func sqliteForm(_ sql: String) -> String { sql.replacingOccurrences(of: "$", with: "?") }

    // MARK: Reading

    func subjectKey(app: String, subject: String, scope: SubjectKeyScope) throws(StoreError) -> StoredSubjectKey? {
        try sqlite {
            try connection.firstRow(
                "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = ? AND sub = ? AND scope = ?",
                [app, subject, scope.canonicalName]
            ) { row throws(SQLiteError) in try SubjectKeyRow.decode(row) }
        }
    }

    func subjectKeys(app: String, subject: String) throws(StoreError) -> [StoredSubjectKey] {
        try sqlite { () throws -> [StoredSubjectKey] in
            var keys: [StoredSubjectKey] = []
            try connection.forEachRow(
                "SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE app = ? AND sub = ? ORDER BY scope",
                [app, subject]
            ) { row throws(SQLiteError) in keys.append(try SubjectKeyRow.decode(row)) }
            return keys
        }
    }

    func subjectKeys(
        wrappedBy masterKeyID: String, after: StoredSubjectKey?, limit: Int
    ) throws(StoreError) -> [StoredSubjectKey] {
        try sqlite { () throws -> [StoredSubjectKey] in
            var keys: [StoredSubjectKey] = []
            try connection.forEachRow(
                """
                SELECT \(SubjectKeyRow.columns) FROM subject_keys
                WHERE (app, sub, scope) > (?, ?, ?) AND master_key_id = ? AND wrapped_key IS NOT NULL
                ORDER BY app, sub, scope LIMIT ?
                """,
                [
                    after?.app ?? "", after?.subject ?? "", after?.scope.canonicalName ?? "", masterKeyID,
                    max(0, limit),
                ]
            ) { row throws(SQLiteError) in keys.append(try SubjectKeyRow.decode(row)) }
            return keys
        }
    }

    func liveSubjectKeyCounts() throws(StoreError) -> [String: Int] {
        try sqlite { () throws -> [String: Int] in
            var counts: [String: Int] = [:]
            try connection.forEachRow(
                "SELECT master_key_id, count(*) FROM subject_keys WHERE wrapped_key IS NOT NULL GROUP BY master_key_id"
            ) { row in counts[row.text(0)] = row.int(1) }
            return counts
        }
    }

    func masterKeys() throws(StoreError) -> [StoredMasterKey] {
        try sqlite { () throws -> [StoredMasterKey] in
            var keys: [StoredMasterKey] = []
            try connection.forEachRow(
                "SELECT \(SubjectKeyRow.masterKeyColumns) FROM master_keys ORDER BY added_at_ms, id"
            ) { row throws(SQLiteError) in keys.append(try SubjectKeyRow.decodeMasterKey(row)) }
            return keys
        }
    }

    func sealedValues(app: String, subject: String) throws(StoreError) -> [StoredSealedValue] {
        try sqlite { () throws -> [StoredSealedValue] in
            var values: [StoredSealedValue] = []
            try connection.forEachRow(
                """
                SELECT id, jti, sealed_email, sealed_raw_jws FROM notifications
                WHERE app = ? AND sub = ? AND (sealed_email IS NOT NULL OR sealed_raw_jws IS NOT NULL) ORDER BY id
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
            if let token = try connection.firstRow(
                "SELECT apple_token FROM accounts WHERE app = ? AND sub = ? AND apple_token IS NOT NULL",
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
        try sqlite { () throws -> [PlaintextNotificationValues] in
            var rows: [PlaintextNotificationValues] = []
            try connection.forEachRow(
                """
                SELECT id, app, sub, jti, email, raw_jws FROM notifications
                WHERE id > ? AND (email IS NOT NULL OR raw_jws IS NOT NULL) ORDER BY id LIMIT ?
                """, [afterID, max(0, limit)]
            ) { row in
                rows.append(
                    PlaintextNotificationValues(
                        id: row.int64(0), app: row.text(1), subject: row.text(2), jti: row.text(3),
                        email: row.optionalText(4), rawJWS: row.optionalText(5)))
            }
            return rows
        }
    }

    func conversionDone(_ name: String) throws(StoreError) -> Bool {
        try sqlite { try connection.queryInt64("SELECT 1 FROM store_conversions WHERE name = ?", [name]) != nil }
    }

    func instanceMasterKeys(since: Instant) throws(StoreError) -> [InstanceMasterKeys] {
        try sqlite { () throws -> [InstanceMasterKeys] in
            var rows: [InstanceMasterKeys] = []
            try connection.forEachRow(
                """
                SELECT instance, master_key_ids, seen_at_ms FROM instance_master_keys
                WHERE seen_at_ms >= ? ORDER BY instance
                """, [since.millisecondsSinceEpoch]
            ) { row in
                rows.append(
                    InstanceMasterKeys(
                        instance: row.text(0), masterKeyIDs: row.text(1).split(separator: ",").map(String.init),
                        seenAt: row.instant(2)))
            }
            return rows
        }
    }

    func remainingSubjectValues(app: String, subject: String, scopes: Set<SubjectKeyScope>) throws(StoreError) -> Int {
        try sqlite { () throws -> Int in
            var remaining = 0
            for scope in scopes.sorted() {
                remaining += Int(
                    try connection.queryInt64(
                        """
                        SELECT count(*) FROM subject_keys
                        WHERE app = ? AND sub = ? AND scope = ? AND wrapped_key IS NOT NULL
                        """, [app, subject, scope.canonicalName]) ?? 0)
                remaining += Int(
                    try connection.queryInt64(sqliteForm(SubjectKeyRow.clearing(scope).remaining), [app, subject]) ?? 0)
            }
            return remaining
        }
    }

    // MARK: Writing

    /// Inserts first (a subject's first notification is the common case: Apple sends few per user), looks
    /// for the existing key only when nothing was inserted.
    func insertSubjectKey(_ key: NewSubjectKey) throws(StoreError) -> SubjectKeyInsertion {
        let inserted = try sqlite {
            try connection.queryInt64(
                """
                INSERT INTO subject_keys (app, sub, scope, wrapped_key, master_key_id, created_at_ms)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6
                WHERE EXISTS (SELECT 1 FROM master_keys WHERE state = 'current' AND id = ?5)
                ON CONFLICT DO NOTHING
                RETURNING 1
                """,
                [
                    key.app, key.subject, key.scope.canonicalName, key.wrappedKey, key.masterKeyID,
                    key.createdAt.millisecondsSinceEpoch,
                ])
        }
        if inserted != nil { return .inserted }
        if let existing = try subjectKey(app: key.app, subject: key.subject, scope: key.scope) {
            return .existing(existing)
        }
        return .refused(
            currentMasterKeyID: try sqlite {
                try connection.queryText("SELECT id FROM master_keys WHERE state = 'current'")
            })
    }

    func replaceDestroyedSubjectKey(_ key: NewSubjectKey) throws(StoreError) -> Bool {
        try sqlite {
            try connection.queryInt64(
                """
                UPDATE subject_keys SET wrapped_key = ?4, master_key_id = ?5, created_at_ms = ?6, destroyed_at_ms = NULL
                WHERE app = ?1 AND sub = ?2 AND scope = ?3 AND wrapped_key IS NULL
                    AND EXISTS (SELECT 1 FROM master_keys WHERE state = 'current' AND id = ?5)
                RETURNING 1
                """,
                [
                    key.app, key.subject, key.scope.canonicalName, key.wrappedKey, key.masterKeyID,
                    key.createdAt.millisecondsSinceEpoch,
                ]) != nil
        }
    }

    func rewrapSubjectKey(
        app: String, subject: String, scope: SubjectKeyScope, fromMasterKeyID: String, wrappedKey: [UInt8],
        masterKeyID: String
    ) throws(StoreError) -> Bool {
        try sqlite {
            try connection.queryInt64(
                """
                UPDATE subject_keys SET wrapped_key = ?, master_key_id = ?
                WHERE app = ? AND sub = ? AND scope = ? AND master_key_id = ? AND wrapped_key IS NOT NULL
                RETURNING 1
                """, [wrappedKey, masterKeyID, app, subject, scope.canonicalName, fromMasterKeyID]) != nil
        }
    }

    func registerMasterKey(id: String, at instant: Instant) throws(StoreError) -> StoredMasterKey {
        try sqlite { () throws -> StoredMasterKey in
            try connection.execute(
                """
                INSERT INTO master_keys (id, state, added_at_ms)
                SELECT ?1, 'current', ?2 WHERE NOT EXISTS (SELECT 1 FROM master_keys WHERE state = 'current')
                ON CONFLICT DO NOTHING
                """, [id, instant.millisecondsSinceEpoch])
            guard
                let current = try connection.firstRow(
                    "SELECT \(SubjectKeyRow.masterKeyColumns) FROM master_keys WHERE state = 'current'", [],
                    { row throws(SQLiteError) in try SubjectKeyRow.decodeMasterKey(row) })
            else { throw SQLiteError(code: 1, message: "no master key is in force after registering one") }
            return current
        }
    }

    func switchMasterKey(to id: String, at instant: Instant) throws(StoreError) -> Bool {
        try sqlite { () throws -> Bool in
            if try connection.queryInt64("SELECT 1 FROM master_keys WHERE id = ? AND state = 'current'", [id]) != nil {
                return false
            }
            try connection.execute("UPDATE master_keys SET state = 'retiring' WHERE state = 'current'")
            try connection.execute(
                """
                INSERT INTO master_keys (id, state, added_at_ms) VALUES (?1, 'current', ?2)
                ON CONFLICT (id) DO UPDATE SET state = 'current', retired_at_ms = NULL
                """, [id, instant.millisecondsSinceEpoch])
            return true
        }
    }

    func retireUnusedMasterKeys(at instant: Instant) throws(StoreError) -> [String] {
        try sqlite { () throws -> [String] in
            var retired: [String] = []
            try connection.forEachRow(
                """
                UPDATE master_keys SET state = 'retired', retired_at_ms = ?
                WHERE state = 'retiring' AND NOT EXISTS (
                    SELECT 1 FROM subject_keys WHERE master_key_id = master_keys.id AND wrapped_key IS NOT NULL)
                RETURNING id
                """, [instant.millisecondsSinceEpoch]
            ) { row in retired.append(row.text(0)) }
            return retired.sorted()
        }
    }

    func eraseSubjectValues(
        app: String, subject: String, scopes: Set<SubjectKeyScope>, at instant: Instant
    ) throws(StoreError) -> SubjectValueErasure {
        try sqlite { () throws -> SubjectValueErasure in
            var erasure = SubjectValueErasure(keysDestroyed: 0, rowsCleared: 0)
            for scope in scopes.sorted() {
                try connection.forEachRow(
                    """
                    UPDATE subject_keys SET wrapped_key = NULL, destroyed_at_ms = ?
                    WHERE app = ? AND sub = ? AND scope = ? AND wrapped_key IS NOT NULL
                    RETURNING 1
                    """, [instant.millisecondsSinceEpoch, app, subject, scope.canonicalName]
                ) { _ in erasure.keysDestroyed += 1 }
                try connection.forEachRow(sqliteForm(SubjectKeyRow.clearing(scope).clear), [app, subject]) { _ in
                    erasure.rowsCleared += 1
                }
            }
            return erasure
        }
    }

    func completePendingHygiene(description: String, finishedBy: Instant) throws(StoreError) -> Int {
        try sqlite { () throws -> Int in
            var completed = 0
            try connection.forEachRow(
                """
                UPDATE erasure_steps SET hygiene = ?
                WHERE hygiene = ? AND finished_at_ms <= ?
                RETURNING 1
                """, [description, ErasureStepEvidence.hygienePending, finishedBy.millisecondsSinceEpoch]
            ) { _ in completed += 1 }
            return completed
        }
    }

    func sealPlaintextNotification(id: Int64, sealedEmail: [UInt8]?, sealedRawJWS: [UInt8]?) throws(StoreError) {
        try sqlite {
            try connection.execute(
                """
                UPDATE notifications SET sealed_email = coalesce(?, sealed_email),
                    sealed_raw_jws = coalesce(?, sealed_raw_jws), email = NULL, raw_jws = NULL
                WHERE id = ?
                """, [sealedEmail, sealedRawJWS, id])
        }
    }

    func recordConversion(_ name: String, at instant: Instant) throws(StoreError) {
        try sqlite {
            try connection.execute(
                "INSERT INTO store_conversions (name, done_at_ms) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [name, instant.millisecondsSinceEpoch])
        }
    }

    func recordInstanceMasterKeys(instance: String, masterKeyIDs: [String]?, at instant: Instant) throws(StoreError) {
        try sqlite {
            guard let masterKeyIDs else {
                try connection.execute("DELETE FROM instance_master_keys WHERE instance = ?", [instance])
                return
            }
            try connection.execute(
                """
                INSERT INTO instance_master_keys (instance, master_key_ids, seen_at_ms) VALUES (?, ?, ?)
                ON CONFLICT (instance) DO UPDATE SET master_key_ids = excluded.master_key_ids,
                    seen_at_ms = excluded.seen_at_ms
                """, [instance, masterKeyIDs.sorted().joined(separator: ","), instant.millisecondsSinceEpoch])
        }
    }
}
